// Output that stays useful at any size (issue 18): output_head and the line naming what lies
// between it and output, the tail file past the cap, progress bars collapsed, and output_offset
// with write_stdin since_offset.

import { createHash } from 'node:crypto';
import { expect, requirement, test } from '../harness/fixtures.js';
import { textOf, type ExecResult, type Zodex } from '../harness/zodex.js';

// The stream of `seq -f '%063g' 1 N`: 64-byte numbered lines.
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(63, '0')}\n`).join('');
const md5 = (text: string | Buffer) => createHash('md5').update(text).digest('hex');

async function runToEnd(z: Zodex, cmd: string): Promise<ExecResult> {
  return (await z.finish(await z.exec({ cmd, workdir: z.root, yield_time_ms: 60_000 }, { timeout: 120_000 }), 30_000, 120_000)).result;
}

// A command that prints `stream` and then keeps running, so its handle stays live.
async function printThenWait(z: Zodex, cmd: string, bytes: number): Promise<ExecResult> {
  let result = await z.exec({ cmd: `${cmd}; sleep 60`, workdir: z.root, yield_time_ms: 2_000 });
  while (result.output_offset < bytes) result = await z.write({ session_handle: result.session_handle!, yield_time_ms: 1_000 });
  expect(result.status).toBe('running');
  return result;
}

requirement('output.head', async ({ zodex }) => {
  const z = await zodex();
  const lines = 49_152;
  const result = await runToEnd(z, `seq -f '%063g' 1 ${lines}; echo LAST-MARKER`);
  const stream = numbered(1, lines) + 'LAST-MARKER\n';
  expect(result.output_offset).toBe(stream.length);
  const head = result.output_head!;
  expect(head.startsWith(numbered(1, 3))).toBe(true);
  expect(result.output.endsWith('LAST-MARKER\n')).toBe(true);
  expect(Buffer.byteLength(head) + Buffer.byteLength(result.output)).toBeLessThanOrEqual(4096);
  const match =
    /^(\d+) lines \(lines (\d+)-(\d+), (\d+) bytes at stream offsets (\d+)-(\d+)\) not shown between output_head and output; read them with: sed -n '(\d+),(\d+)p' (\S+)$/.exec(
      result.output_omitted!,
    );
  expect(match, result.output_omitted).not.toBeNull();
  const [count, first, last, bytes, from, to] = match!.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  expect(match![9]).toBe(result.output_file);
  expect([count, from, to + 1 - from]).toEqual([last - first + 1, head.length, bytes]);
  // head + the lines sed prints + output is the whole stream
  const middle = numbered(first, last);
  expect(head + middle + result.output).toBe(stream);
  expect((await z.sh(`sed -n '${first},${last}p' '${result.output_file}' | md5sum`)).split(' ')[0]).toBe(md5(middle));
});

requirement('output.tail-file', async ({ zodex }) => {
  const z = await zodex({ args: ['--spill-cap-bytes', '1048576', '--tail-file-bytes', '262144'] });
  const lines = 49_152; // 3 MiB: past the 1 MiB cap
  const result = await runToEnd(z, `seq -f '%063g' 1 ${lines}; echo LAST-MARKER`);
  const stream = Buffer.from(numbered(1, lines) + 'LAST-MARKER\n');
  expect(result).toMatchObject({ output_file_truncated: true, output_offset: stream.length, output_tail_file_offset: stream.length - 262_144 });
  const tail = result.output_tail_file!;
  const file = result.output_file!;
  expect(tail.slice(0, tail.lastIndexOf('/'))).toBe(file.slice(0, file.lastIndexOf('/')));
  expect((await z.sh(`stat -c '%a %s' '${tail}' '${file}'; md5sum < '${tail}'`)).split('\n').slice(0, 3)).toEqual([
    '600 262144',
    '600 1048576',
    `${md5(stream.subarray(stream.length - 262_144))}  -`,
  ]);
  // the gap line names the kept start, the bytes not kept, and how to read the kept tail
  const omitted = result.output_omitted!;
  expect(omitted).toContain(`output_file has them from line ${result.output_head!.split('\n').length} to its end: sed -n '`);
  expect(omitted).toMatch(/stream offsets 1048576-\d+ \(\d+ bytes\) were not kept/);
  const read = /tail -c \+(\d+) (\S+) \| head -c (\d+)/.exec(omitted)!;
  expect(read[2]).toBe(tail);
  const from = result.output_tail_file_offset! + Number(read[1]) - 1;
  const expected = stream.subarray(from, from + Number(read[3]));
  expect(stream.subarray(from + Number(read[3])).toString()).toBe(result.output);
  expect((await z.sh(`tail -c +${read[1]} '${tail}' | head -c ${read[3]} | md5sum`)).split(' ')[0]).toBe(md5(expected));
});

requirement('output.progress', async ({ zodex }) => {
  const z = await zodex();
  const result = await runToEnd(z, `echo start; i=0; while [ $i -lt 10000 ]; do i=$((i+1)); printf '\\rprogress %5d/10000' $i; done; printf '\\ndone\\n'`);
  expect(result.output).toBe('start\nprogress 10000/10000\ndone\n');
  expect(result.output_head).toBeUndefined();
  const total = 'start\n'.length + 10_000 * 21 + '\ndone\n'.length;
  expect(result).toMatchObject({ output_chars: total, output_lines: 3, output_offset: total });
  // the spill file keeps the decoded stream: every frame and every \r
  expect((await z.sh(`stat -c %s '${result.output_file}'; tr -cd '\\r' < '${result.output_file}' | wc -c`)).split('\n').slice(0, 2)).toEqual([
    String(total),
    '10000',
  ]);
});

requirement('output.offset', async ({ zodex }) => {
  test.setTimeout(90_000);
  const z = await zodex();
  // small: from memory
  const small = numbered(1, 100);
  const first = await printThenWait(z, `seq -f '%063g' 1 100`, small.length);
  const handle = first.session_handle!;
  expect(first.output_offset).toBe(small.length);
  const again = await z.write({ session_handle: handle, since_offset: 64 * 40, yield_time_ms: 0 });
  expect(again).toMatchObject({ output: small.slice(64 * 40), output_offset: small.length, status: 'running' });
  const ahead = await z.call('write_stdin', { session_handle: handle, since_offset: small.length + 1, yield_time_ms: 0 });
  expect(ahead.isError).toBe(true);
  expect(textOf(ahead)).toMatch(/^SINCE_OFFSET_AHEAD: since_offset 6401 is past the end of the stream \(6400 bytes so far\)/);
  // However far past the end, even beyond what a double holds exactly.
  expect(textOf(await z.call('write_stdin', { session_handle: handle, since_offset: 1e20, yield_time_ms: 0 }))).toMatch(
    /^SINCE_OFFSET_AHEAD: since_offset 100000000000000000000 is past the end/,
  );
  for (const bad of [-1, 1.5, 'x']) {
    const invalid = await z.call('write_stdin', { session_handle: handle, since_offset: bad, yield_time_ms: 0 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('SINCE_OFFSET_INVALID');
  }
  const poll = await z.write({ session_handle: handle, yield_time_ms: 0 });
  expect(poll).toMatchObject({ output: '', output_offset: small.length });
  await z.write({ session_handle: handle, kill_process: true });

  // spilled: from the spill file, with head and the gap line
  const big = numbered(1, 2_000);
  const spilled = await printThenWait(z, `seq -f '%063g' 1 2000`, big.length);
  expect(spilled.output_offset).toBe(big.length);
  const replay = await z.write({ session_handle: spilled.session_handle!, since_offset: 640, yield_time_ms: 0 });
  expect(replay.output_offset).toBe(big.length);
  expect(replay.output_head!.startsWith(numbered(11, 12))).toBe(true);
  expect(big.endsWith(replay.output)).toBe(true);
  expect(replay.output_omitted).toMatch(/sed -n '\d+,\d+p'/);
  await z.write({ session_handle: spilled.session_handle!, kill_process: true });
});

requirement('output.not-retained', async ({ zodex }) => {
  test.setTimeout(90_000);
  const z = await zodex({ args: ['--spill-cap-bytes', '1048576', '--tail-file-bytes', '262144'] });
  const stream = numbered(1, 49_152);
  const result = await printThenWait(z, `seq -f '%063g' 1 49152`, stream.length);
  const handle = result.session_handle!;
  const refused = await z.call('write_stdin', { session_handle: handle, since_offset: 2_000_000, yield_time_ms: 0 });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toMatch(/^SINCE_OFFSET_NOT_RETAINED: since_offset 2000000 lies in stream bytes 1048576-\d+, which were not kept/);
  expect(await z.write({ session_handle: handle, yield_time_ms: 0 })).toMatchObject({ output: '', output_offset: stream.length });
  // what is kept is delivered: the start from the file, the end from the tail
  const start = await z.write({ session_handle: handle, since_offset: 0, yield_time_ms: 0 });
  expect(start.output_head!.startsWith(numbered(1, 2))).toBe(true);
  expect(start.output_omitted).toContain('were not kept');
  const end = await z.write({ session_handle: handle, since_offset: stream.length - 640, yield_time_ms: 0 });
  expect(end.output).toBe(numbered(49_143, 49_152));
  await z.write({ session_handle: handle, kill_process: true });
});
