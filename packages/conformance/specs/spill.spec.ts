// Output that never floods (seed 002, issue 3): spill files, their cap, counts, previews,
// privacy, cleanup, split characters and an unusable spill folder.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import type { ExecResult, Zodex } from '../harness/zodex.js';

const MIB = 1024 * 1024;

async function runToEnd(z: Zodex, cmd: string, workdir = z.root): Promise<{ result: ExecResult; output: string }> {
  return z.finish(await z.exec({ cmd, workdir, yield_time_ms: 60_000 }, { timeout: 120_000 }), 30_000, 120_000);
}

requirement('spill.inline', async ({ zodex }) => {
  const z = await zodex();
  const result = await z.exec({ cmd: 'seq 1 1000', workdir: z.root });
  expect(result.output).toBe(Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join(''));
  expect(result.output_file).toBeUndefined();
  expect(result.output_chars).toBeUndefined();
});

requirement('spill.large-output', async ({ zodex }) => {
  const z = await zodex();
  // 3 MB in 64-byte lines, then a marker printed last
  const lines = 49_152;
  const { result } = await runToEnd(z, `seq -f '%063g' 1 ${lines}; echo LAST-MARKER-3MB`);
  const total = lines * 64 + 'LAST-MARKER-3MB\n'.length;
  expect(result).toMatchObject({ status: 'exited', exit_code: 0, output_chars: total, output_lines: lines + 1, output_file_truncated: false });
  expect(result.output.endsWith('LAST-MARKER-3MB\n')).toBe(true);
  expect(result.output.length).toBeLessThan(64 * 1024);
  const file = result.output_file!;
  expect(file).toMatch(/^\//);
  expect((await z.sh(`stat -c '%a %s' '${file}'; stat -c '%a' "$(dirname '${file}')"`)).split('\n')).toEqual([`600 ${total}`, '700', '']);
  expect(await z.sh(`head -n 1 '${file}'; tail -n 1 '${file}'`)).toBe(`${'1'.padStart(63, '0')}\nLAST-MARKER-3MB\n`);
});

requirement('spill.cap', async ({ zodex }) => {
  test.setTimeout(120_000);
  const z = await zodex();
  const lines = 327_680; // 20 MiB of 64-byte lines
  const { result } = await runToEnd(z, `seq -f '%063g' 1 ${lines}; echo LAST-MARKER-20MIB`);
  const total = lines * 64 + 'LAST-MARKER-20MIB\n'.length;
  expect(result).toMatchObject({ status: 'exited', output_chars: total, output_lines: lines + 1, output_file_truncated: true });
  expect(result.output.endsWith(`${String(lines).padStart(63, '0')}\nLAST-MARKER-20MIB\n`)).toBe(true);
  const file = result.output_file!;
  expect((await z.sh(`stat -c %s '${file}'`)).trim()).toBe(String(16 * MIB));
  // exactly the first 16 MiB: 262144 whole lines, the last of them line 262144
  expect(await z.sh(`head -n 1 '${file}'; tail -n 1 '${file}'; wc -l < '${file}'`)).toBe(`${'1'.padStart(63, '0')}\n${'262144'.padStart(63, '0')}\n262144\n`);
});

requirement('spill.later-results', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: `seq -f '%063g' 1 2000; sleep 1; seq -f '%063g' 1 1000; echo tail-end`, workdir: z.root, yield_time_ms: 500 });
  expect(first.status).toBe('running');
  expect(first.output_file).toBeDefined();
  expect(first.output_chars).toBe(2000 * 64);
  const { result } = await z.finish(first, 5_000);
  expect(result.output_file).toBe(first.output_file);
  expect(result.output_chars).toBe(3000 * 64 + 'tail-end\n'.length);
  expect(result.output_lines).toBe(3001);
  expect(result.output.endsWith('tail-end\n')).toBe(true);
});

requirement('spill.folder-cap', async ({ zodex }) => {
  test.setTimeout(120_000);
  // 200 KB per command, 600 KB for the folder: the fourth file needs room.
  const z = await zodex({ args: ['--spill-cap-bytes', '200000', '--spill-folder-max-bytes', '600000'] });
  const big = (tag: string) => `head -c 199990 /dev/zero | tr '\\0' ${tag}; echo; echo ${tag}-end`;
  const folderBytes = async (file: string) => Number((await z.sh(`cat "$(dirname '${file}')"/* | wc -c`)).trim());
  // a running command's file (spilled, then it waits for a line) is never removed
  const running = await z.exec({ cmd: `${big('r')}; read line`, workdir: '/', yield_time_ms: 2_000 });
  expect(running).toMatchObject({ status: 'running' });
  // an ended command whose exit nobody has collected yet
  const unreported = await z.exec({ cmd: `${big('u')}; sleep 2`, workdir: '/', yield_time_ms: 1_000 });
  expect(unreported).toMatchObject({ status: 'running', output_file: expect.stringMatching(/^\//) });
  await new Promise((resolve) => setTimeout(resolve, 2_500)); // it ends; nobody collects its exit yet
  const a = (await runToEnd(z, big('a'))).result;
  expect(a.output_files_removed).toBeUndefined(); // 600 KB fit
  expect(await folderBytes(a.output_file!)).toBeLessThanOrEqual(600_000);
  // the fourth file: the oldest ended command's file goes (the unreported one), not the running one's
  const b = (await runToEnd(z, big('b'))).result;
  expect(b.output_files_removed).toEqual([unreported.output_file]);
  expect(await z.sh(`test -e '${unreported.output_file}' && echo there || echo gone`)).toBe('gone\n');
  expect(await z.sh(`test -e '${running.output_file}' && echo there || echo gone`)).toBe('there\n');
  expect(await folderBytes(b.output_file!)).toBeLessThanOrEqual(600_000);
  // the removed file's own session says so in its next result, and names no file
  const late = await z.write({ session_handle: unreported.session_handle!, yield_time_ms: 5_000 });
  expect(late).toMatchObject({ status: 'exited', output_chars: 199_990 + '\nu-end\n'.length });
  expect(late.output_file).toBeUndefined();
  expect(late.output_file_error).toMatch(/was removed to keep the spill folder under its 600000-byte cap \(--spill-folder-max-bytes\)/);
  // then the next oldest ended one (a), never the running one
  const c = (await runToEnd(z, big('c'))).result;
  expect(c.output_files_removed).toEqual([a.output_file]);
  expect(await z.sh(`test -e '${running.output_file}' && echo there || echo gone`)).toBe('there\n');
  await z.write({ session_handle: running.session_handle!, kill_process: true });
});

requirement('spill.cleanup', async ({ zodex }) => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-spill-parent-'));
  fs.chmodSync(parent, 0o700);
  const folder = path.join(parent, 'spill-Old123');
  fs.mkdirSync(folder, { mode: 0o700 });
  const stale = path.join(folder, 'out-lz2k8ayh-0badc0de.txt');
  const fresh = path.join(folder, 'out-lz2k8ayi-0badc0df.txt');
  const notOurs = path.join(folder, 'keep-me.txt');
  for (const file of [stale, fresh, notOurs]) fs.writeFileSync(file, 'old output\n', { mode: 0o600 });
  const old = new Date(Date.now() - 25 * 3_600_000);
  fs.utimesSync(stale, old, old);
  fs.utimesSync(notOurs, old, old);
  try {
    await zodex({ args: ['--spill-dir', parent] });
    await expect.poll(() => fs.existsSync(stale), { timeout: 5_000 }).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    expect(fs.existsSync(notOurs)).toBe(true);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

requirement('spill.utf8-split', async ({ zodex }) => {
  const z = await zodex();
  // one character written in two halves, with a result returned in between
  const first = await z.exec({ cmd: String.raw`printf 'price: \342\202'; sleep 1; printf '\254 5\n'`, workdir: z.root, yield_time_ms: 400 });
  expect(first.status).toBe('running');
  expect(first.output).toBe('price: ');
  const { result, output } = await z.finish(first, 5_000);
  expect(result.status).toBe('exited');
  expect(output).toBe('price: € 5\n');
  expect(output).not.toContain('\uFFFD');
  // many multi-byte characters across read and spill boundaries
  const { result: big } = await runToEnd(z, `yes 'aé€🎉' | head -n 100000`);
  expect(big.output_chars).toBe(100_000 * 5);
  expect(big.output).not.toContain('\uFFFD');
  expect(big.output.endsWith('aé€🎉\n')).toBe(true);
  expect(await z.sh(`iconv -f UTF-8 -t UTF-8 '${big.output_file}' >/dev/null && echo valid; wc -m < '${big.output_file}'`)).toBe(`valid\n${100_000 * 5}\n`);
});

requirement('spill.unwritable', async ({ zodex }) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-unwritable-'));
  const file = path.join(root, 'a-file');
  fs.writeFileSync(file, 'x');
  try {
    // a folder under a regular file can never be made, even by root
    const z = await zodex({ args: ['--spill-dir', path.join(file, 'spill')] });
    const { result } = await runToEnd(z, `seq 1 200000; echo STILL-HERE`);
    expect(result).toMatchObject({ status: 'exited', exit_code: 0, output_file_truncated: false });
    expect(result.output_file).toBeUndefined();
    expect(result.output_file_error).toMatch(/^spilling failed: .*ENOTDIR/);
    expect(result.output.endsWith('200000\nSTILL-HERE\n')).toBe(true);
    expect(result.output_lines).toBe(200_001);
    expect((await z.exec({ cmd: 'echo alive', workdir: z.root })).output).toBe('alive\n');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
