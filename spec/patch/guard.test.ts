import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs } from '../../src/patch/apply.js';
import { applyPatch, type FsPort } from '../../src/patch/index.js';
import { patch, scratchFolder } from './support.js';

const scratch = scratchFolder('zodex-guard-');
const { file, read, listing } = scratch;
const twoFiles = patch('*** Update File: a.txt', '@@', '-old a', '+new a', '*** Update File: b.txt', '@@', '-old b', '+new b');

// Another process's append, at the moment `when` says (once).
// 'rename': a writer that opened the file before the rename writes `text` after it, into the
// replaced file, and (with `byName`) another then appends `byName` to the patched file by name.
function appendAt(when: 'check' | 'rename', name: string, text: string, extra: Partial<FsPort> = {}, byName = ''): FsPort {
  let done = false;
  const fire = () => {
    if (done) return;
    done = true;
    fs.appendFileSync(file(name), text);
  };
  return {
    ...nodeFs,
    ...extra,
    async link(existing, newPath) {
      if (when === 'check' && existing === file(name)) fire();
      await (extra.link ?? nodeFs.link)(existing, newPath);
    },
    async rename(from, to) {
      if (when === 'rename' && to === file(name) && !done) {
        done = true;
        const fd = fs.openSync(file(name), 'a'); // a writer that opened the file before the rename
        await nodeFs.rename(from, to);
        fs.writeSync(fd, text); // ... and writes after it, into the replaced file
        fs.closeSync(fd);
        if (byName) fs.appendFileSync(file(name), byName);
        return;
      }
      await nodeFs.rename(from, to);
    },
  };
}

describe('a file another process writes between read and rename', () => {
  it("fails that operation with FILE_CHANGED_DURING_PATCH, keeps the writer's bytes, applies the rest", async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    fs.writeFileSync(file('b.txt'), 'old b\n');
    const report = await applyPatch(twoFiles, scratch.dir, appendAt('check', 'a.txt', 'appended\n'));
    expect(report.changed).toEqual([{ kind: 'M', path: 'b.txt' }]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        op: 'update',
        path: 'a.txt',
        code: 'FILE_CHANGED_DURING_PATCH',
        reason: expect.stringMatching(
          /another process wrote .*a\.txt after apply_patch read it \(its size went from 6 to 15 bytes\); this operation was not applied/,
        ),
      }),
    ]);
    expect(read('a.txt')).toBe('old a\nappended\n');
    expect(read('b.txt')).toBe('new b\n');
    expect(listing()).toEqual(['a.txt', 'b.txt']);
  });

  it('puts the old file back when a write through an old descriptor lands at the rename', async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    fs.writeFileSync(file('b.txt'), 'old b\n');
    const report = await applyPatch(twoFiles, scratch.dir, appendAt('rename', 'a.txt', 'late\n'));
    expect(report.changed).toEqual([{ kind: 'M', path: 'b.txt' }]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        code: 'FILE_CHANGED_DURING_PATCH',
        reason: expect.stringContaining(
          'while apply_patch replaced it (its size went from 6 to 11 bytes); the old file, with what that process wrote, was put back',
        ),
      }),
    ]);
    expect(read('a.txt')).toBe('old a\nlate\n');
    expect(listing()).toEqual(['a.txt', 'b.txt']);
  });

  it('puts the old file back with what was appended to the patched file by name meanwhile, in order', async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    const report = await applyPatch(
      patch('*** Update File: a.txt', '@@', '-old a', '+new a'),
      scratch.dir,
      appendAt('rename', 'a.txt', 'late 1\n', {}, 'late 2\n'),
    );
    expect(report.changed).toEqual([]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        code: 'FILE_CHANGED_DURING_PATCH',
        reason: expect.stringContaining('(with the 7 bytes written meanwhile to the patched file appended), was put back'),
      }),
    ]);
    expect(read('a.txt')).toBe('old a\nlate 1\nlate 2\n');
    expect(listing()).toEqual(['a.txt']);
  });

  it('without hard links, says the patched file is in place and the late write went to the replaced file', async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    fs.writeFileSync(file('b.txt'), 'old b\n');
    const noLinks = async () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    };
    const report = await applyPatch(twoFiles, scratch.dir, appendAt('rename', 'a.txt', 'late\n', { link: noLinks }));
    expect(report.changed).toEqual([
      { kind: 'M', path: 'a.txt' },
      { kind: 'M', path: 'b.txt' },
    ]);
    expect(report.failed).toEqual([
      expect.objectContaining({ code: 'FILE_CHANGED_DURING_PATCH', reason: expect.stringContaining('the patched file is in place') }),
    ]);
    expect(read('a.txt')).toBe('new a\n');
    expect(listing()).toEqual(['a.txt', 'b.txt']);
  });

  it('checks the source of a move before removing it', async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    let moved = false;
    const port: FsPort = {
      ...nodeFs,
      async rename(from, to) {
        await nodeFs.rename(from, to);
        if (!moved && to === file('b.txt')) {
          moved = true;
          fs.appendFileSync(file('a.txt'), 'more\n');
        }
      },
    };
    const report = await applyPatch(patch('*** Update File: a.txt', '*** Move to: b.txt', '@@', '-old a', '+new a'), scratch.dir, port);
    expect(report.changed).toEqual([{ kind: 'M', path: 'b.txt', movedFrom: 'a.txt' }]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        op: 'move',
        code: 'FILE_CHANGED_DURING_PATCH',
        reason: expect.stringContaining('the new file was written, but another process wrote'),
      }),
    ]);
    expect(read('a.txt')).toBe('old a\nmore\n');
  });

  it('leaves no descriptor open', async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    const before = fs.readdirSync('/proc/self/fd').length;
    await applyPatch(patch('*** Update File: a.txt', '@@', '-nope', '+x'), scratch.dir);
    await applyPatch(patch('*** Update File: a.txt', '@@', '-old a', '+new a'), scratch.dir);
    expect(fs.readdirSync('/proc/self/fd').length).toBe(before);
  });
});

// A real writer: a shell appending numbered lines while patches rewrite the file's first line,
// each `>>` opening the file anew, or one descriptor held for the whole run. Every patch succeeds
// or fails with FILE_CHANGED_DURING_PATCH; no line is lost.
async function appendWhilePatching(lines: number, heldOpen: boolean) {
  fs.writeFileSync(file('log.txt'), 'version 0\n');
  const loop = heldOpen
    ? `exec 3>>'${file('log.txt')}'; for i in $(seq 1 ${lines}); do echo "line $i" >&3; done`
    : `for i in $(seq 1 ${lines}); do echo "line $i" >> '${file('log.txt')}'; done`;
  const writer = spawn('bash', ['-c', loop], { stdio: 'ignore' });
  let running = true;
  const ended = new Promise((resolve) => writer.on('exit', resolve)).then(() => (running = false));
  let version = 0;
  const outcomes: string[] = [];
  const conflicts: string[] = [];
  while (running || outcomes.length === 0) {
    const report = await applyPatch(patch('*** Update File: log.txt', '@@', `-version ${version}`, `+version ${version + 1}`), scratch.dir);
    if (report.changed.length > 0) version++; // applied, perhaps with a conflict reported
    outcomes.push(report.failed[0]?.code ?? 'OK');
    const kept = /kept as (\S+)\.$/.exec(report.failed[0]?.reason ?? '')?.[1];
    if (kept) conflicts.push(kept);
  }
  await ended;
  const text = read('log.txt').split('\n');
  // A line is lost when it is neither in the file nor in a copy the report named.
  const seen = new Set([...text, ...conflicts.flatMap((kept) => fs.readFileSync(kept, 'utf8').split('\n'))]);
  const lost = Array.from({ length: lines }, (_, i) => `line ${i + 1}`).filter((line) => !seen.has(line));
  const count = (code: string) => outcomes.filter((o) => o === code).length;
  console.log(
    `${heldOpen ? 'one descriptor' : '>> per line'}: patches ${outcomes.length}, ok ${count('OK')}, ` +
      `FILE_CHANGED_DURING_PATCH ${count('FILE_CHANGED_DURING_PATCH')} (a conflict copy kept: ${conflicts.length}); ` +
      `lines lost: ${lost.length} of ${lines}`,
  );
  expect(outcomes.filter((o) => o !== 'OK' && o !== 'FILE_CHANGED_DURING_PATCH')).toEqual([]);
  expect(text[0]).toBe(`version ${version}`);
  expect(lost).toEqual([]);
  expect(listing()).toEqual(['log.txt', ...conflicts.map((kept) => path.basename(kept))].sort());
}

describe('a shell appending while patches rewrite the file', () => {
  it('loses no line when each line opens the file anew', () => appendWhilePatching(20_000, false), 120_000);
  it('loses no line when the writer holds one descriptor (Linux: a read lease tells)', () => appendWhilePatching(20_000, true), 120_000);
});
