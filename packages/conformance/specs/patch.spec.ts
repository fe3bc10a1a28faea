// apply_patch through MCP (seeds 000, 002, issue 4): both scenario corpora, tree for tree, and
// the rules whose error texts matter to a model.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import { CODEX_CORPUS } from '../harness/docker.js';
import { PACKAGE_ROOT } from '../harness/target.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { textOf, type Zodex } from '../harness/zodex.js';

const CORPORA = [
  { name: 'ours', root: path.join(PACKAGE_ROOT, 'patch-scenarios') },
  { name: 'codex', root: CODEX_CORPUS },
];

function scenarios(root: string): string[] {
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d{3}_/.test(entry.name))
    .map((entry) => path.join(root, entry.name))
    .sort();
}

function localTree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  if (!fs.existsSync(root)) return files;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full)] = fs.readFileSync(full).toString('base64');
    }
  };
  walk(root);
  return files;
}

// The server's tree under `dir`, every regular file as base64 (read through exec_command).
async function remoteTree(z: Zodex, dir: string): Promise<Record<string, string>> {
  const b64 = (await z.sh(`tar -C '${dir}' -cf - . | base64 -w0`)).trim();
  const local = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-tree-'));
  try {
    execFileSync('tar', ['-C', local, '--no-overwrite-dir', '--no-same-permissions', '-xf', '-'], { input: Buffer.from(b64, 'base64') });
    return localTree(local);
  } finally {
    execFileSync('chmod', ['-R', 'u+rwX', local]); // modes came from the server's tree
    fs.rmSync(local, { recursive: true, force: true });
  }
}

// Recreates a local tree on the server's machine under `dir`.
async function upload(z: Zodex, from: string, dir: string): Promise<void> {
  if (!fs.existsSync(from)) return;
  const b64 = execFileSync('tar', ['-C', from, '--mode=u+rwX', '-cf', '-', '.']).toString('base64'); // writable by whoever the server runs as
  await z.sh(`printf '%s' '${b64}' | base64 -d | tar -C '${dir}' -xf -`);
}

requirement('patch.corpus', async ({ zodex }) => {
  test.setTimeout(240_000);
  const z = await zodex();
  for (const corpus of CORPORA) {
    if (!fs.existsSync(corpus.root)) {
      const message = `the ${corpus.name} corpus is not at ${corpus.root}`;
      if (corpus.name === 'codex' && !process.env.ZODEX_NO_SKIP) {
        console.warn(`SKIPPED: ${message} (set ZODEX_CODEX_CORPUS to run it)`);
        continue;
      }
      throw new Error(message);
    }
    let passed = 0;
    const list = scenarios(corpus.root);
    for (const scenario of list) {
      const dir = await z.scratch();
      await upload(z, path.join(scenario, 'input'), dir);
      const patch = fs.readFileSync(path.join(scenario, 'patch.txt'), 'utf8').replaceAll('{{WORKDIR}}', dir);
      await z.patch(dir, patch);
      expect(await remoteTree(z, dir), `${corpus.name}/${path.basename(scenario)}`).toEqual(localTree(path.join(scenario, 'expected')));
      passed++;
    }
    expect(passed).toBe(list.length);
  }
});

requirement('patch.success-text', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.writeFile(`${dir}/modify.txt`, 'one\ntwo\n');
  await z.writeFile(`${dir}/delete.txt`, 'bye\n');
  const result = await z.patch(
    dir,
    '*** Begin Patch\n*** Delete File: delete.txt\n*** Update File: modify.txt\n*** Move to: moved/modify.txt\n@@\n one\n-two\n+2\n*** Add File: nested/new.txt\n+created\n*** End Patch\n',
  );
  expect(result.isError).toBeFalsy();
  // Codex's order, whatever the patch's: every A, then every M (a move by its destination), then every D.
  expect(textOf(result).split('\n\n')[0]).toBe('Success. Updated the following files:\nA nested/new.txt\nM moved/modify.txt\nD delete.txt\n');
  expect((await z.readFile(`${dir}/moved/modify.txt`))!.toString()).toBe('one\n2\n');
  expect(await z.readFile(`${dir}/modify.txt`)).toBeUndefined();
  expect(await z.readFile(`${dir}/delete.txt`)).toBeUndefined();
});

// Stale context in one file of three: the other two operations apply.
async function partialPatch(z: Zodex): Promise<{ dir: string; result: CallToolResult }> {
  const dir = await z.scratch();
  await z.writeFile(`${dir}/good.txt`, 'alpha\nbeta\n');
  await z.writeFile(`${dir}/stale.txt`, 'current line\n');
  const result = await z.patch(
    dir,
    [
      '*** Begin Patch',
      '*** Update File: good.txt',
      '@@',
      ' alpha',
      '-beta',
      '+BETA',
      '*** Update File: stale.txt',
      '@@',
      '-a line that is no longer there',
      '+replacement',
      '*** Add File: added.txt',
      '+new',
      '*** End Patch',
      '',
    ].join('\n'),
  );
  return { dir, result };
}

requirement('patch.partial', async ({ zodex }) => {
  const z = await zodex();
  const { dir, result } = await partialPatch(z);
  expect(result.isError).toBe(true);
  const text = textOf(result);
  for (const file of ['good.txt', 'added.txt', 'stale.txt']) expect(text, `the error text names ${file}`).toContain(file);
  expect((await z.readFile(`${dir}/good.txt`))!.toString()).toBe('alpha\nBETA\n');
  expect((await z.readFile(`${dir}/added.txt`))!.toString()).toBe('new\n');
  expect((await z.readFile(`${dir}/stale.txt`))!.toString()).toBe('current line\n');
});

const MALFORMED = [
  '*** Begin Patch\n*** Add File: new.txt\n+x\n*** Frobnicate File: keep.txt\n*** End Patch\n',
  '*** Begin Patch\n*** Update File: keep.txt\n*** End Patch\n',
  '*** Add File: new.txt\n+x\n*** End Patch\n',
  '*** Begin Patch\n*** Add File: new.txt\n+x\n',
  '',
];

requirement('patch.malformed', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.writeFile(`${dir}/keep.txt`, 'unchanged\n');
  for (const patch of MALFORMED) {
    const result = await z.patch(dir, patch);
    expect(result.isError, JSON.stringify(patch)).toBe(true);
    expect(await z.sh(`ls -A '${dir}'`)).toBe('keep.txt\n');
  }
  expect((await z.readFile(`${dir}/keep.txt`))!.toString()).toBe('unchanged\n');
});

const ORIGINAL_PY = 'def a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n';
const REVERSED =
  '*** Begin Patch\n*** Update File: f.py\n@@\n def c():\n-    return 3\n+    return 30\n@@\n def a():\n-    return 1\n+    return 10\n*** End Patch\n';
const OVERLAPPING =
  '*** Begin Patch\n*** Update File: f.py\n@@\n def b():\n-    return 2\n+    return 20\n@@\n def a():\n-    return 10\n+    return 11\n \n def b():\n*** End Patch\n';

requirement('patch.out-of-order', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.writeFile(`${dir}/f.py`, ORIGINAL_PY);
  const reversed = await z.patch(dir, REVERSED);
  expect(reversed.isError, textOf(reversed).slice(0, 300)).toBeFalsy();
  const after = ORIGINAL_PY.replace('return 1', 'return 10').replace('return 3', 'return 30');
  expect((await z.readFile(`${dir}/f.py`))!.toString()).toBe(after);
  expect((await z.patch(dir, OVERLAPPING)).isError).toBe(true);
  expect((await z.readFile(`${dir}/f.py`))!.toString()).toBe(after);
});

const TWICE = 'start\nvalue = 1\nmiddle\nvalue = 1\nend\n';
const AMBIGUOUS = '*** Begin Patch\n*** Update File: twice.txt\n@@\n-value = 1\n+value = 2\n*** End Patch\n';

requirement('patch.ambiguous', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.writeFile(`${dir}/twice.txt`, TWICE);
  expect((await z.patch(dir, AMBIGUOUS)).isError).toBe(true);
  expect((await z.readFile(`${dir}/twice.txt`))!.toString()).toBe(TWICE);
});

requirement('surface.patch-errors', async ({ zodex }) => {
  const z = await zodex();
  const partial = textOf((await partialPatch(z)).result);
  expect(partial).toMatch(/M good\.txt/);
  expect(partial).toMatch(/A added\.txt/);
  expect(partial).toMatch(/stale\.txt/);
  expect(partial).toMatch(/a line that is no longer there/);
  expect(partial).toMatch(/re-read/i);

  const dir = await z.scratch();
  await z.writeFile(`${dir}/keep.txt`, 'unchanged\n');
  for (const patch of MALFORMED) expect(textOf(await z.patch(dir, patch)), JSON.stringify(patch)).toMatch(/^PATCH_PARSE: /);
  const first = textOf(await z.patch(dir, MALFORMED[0]!));
  expect(first).toMatch(/line 4/);
  expect(first).toMatch(/\*\*\* Add File: /);
  expect(first).toMatch(/\*\*\* Update File: /);

  await z.writeFile(`${dir}/f.py`, ORIGINAL_PY);
  expect((await z.patch(dir, REVERSED)).isError).toBeFalsy();
  expect(textOf(await z.patch(dir, OVERLAPPING))).toMatch(/overlap/i);

  await z.writeFile(`${dir}/twice.txt`, TWICE);
  const ambiguous = textOf(await z.patch(dir, AMBIGUOUS));
  expect(ambiguous).toMatch(/ambiguous/i);
  expect(ambiguous).toMatch(/\b2\b/);
  expect(ambiguous).toMatch(/\b4\b/);
});

requirement('patch.relative-paths', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const result = await z.patch(dir, '*** Begin Patch\n*** Add File: a/b/c/deep.txt\n+deep\n*** Add File: ./top.txt\n+top\n*** End Patch\n');
  expect(result.isError).toBeFalsy();
  expect((await z.readFile(`${dir}/a/b/c/deep.txt`))!.toString()).toBe('deep\n');
  expect((await z.readFile(`${dir}/top.txt`))!.toString()).toBe('top\n');
});

requirement('patch.absolute-paths', async ({ zodex }) => {
  const z = await zodex();
  const workdir = await z.scratch();
  const elsewhere = await z.scratch();
  const result = await z.patch(workdir, `*** Begin Patch\n*** Add File: ${elsewhere}/outside.txt\n+reached\n*** End Patch\n`);
  expect(result.isError).toBeFalsy();
  expect((await z.readFile(`${elsewhere}/outside.txt`))!.toString()).toBe('reached\n');
  expect(await z.sh(`ls -A '${workdir}'`)).toBe('');
});
