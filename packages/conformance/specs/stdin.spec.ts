// write_stdin: polling, typing, killing (grandchildren too), and spent or unknown handles.

import { expect, requirement } from '../harness/fixtures.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { structuredOf, textOf, type Zodex } from '../harness/zodex.js';

requirement('stdin.poll', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: 'echo one; sleep 1; echo two; sleep 1; echo three', workdir: z.root, yield_time_ms: 300 });
  expect(first.status).toBe('running');
  const { result, output } = await z.finish(first, 800);
  expect(output).toBe('one\ntwo\nthree\n');
  expect(result).toMatchObject({ status: 'exited', exit_code: 0, termination_reason: 'exit' });
  expect(result.session_handle).toBeUndefined();
});

requirement('stdin.poll-ends-on-output', async ({ zodex }) => {
  const z = await zodex();
  const poll = async (handle: string, yieldMs: number) => {
    const started = Date.now();
    const result = await z.write({ session_handle: handle, yield_time_ms: yieldMs });
    return { result, ms: Date.now() - started };
  };
  // a line after 0.5 s: the 4 s poll returns with it, not at 4 s (issue 23: it took 4,004 ms)
  const line = await z.exec({ cmd: 'sleep 0.5; echo line; sleep 30', workdir: '/', yield_time_ms: 0 });
  const first = await poll(line.session_handle!, 4_000);
  expect(first.result).toMatchObject({ status: 'running', output: 'line\n' });
  expect(first.ms).toBeLessThan(2_500);
  // a burst written in pieces comes back whole
  const burst = await z.exec({ cmd: 'sleep 0.3; for i in 1 2 3 4 5; do echo "piece $i"; sleep 0.02; done; sleep 30', workdir: '/', yield_time_ms: 0 });
  expect((await poll(burst.session_handle!, 10_000)).result.output).toBe('piece 1\npiece 2\npiece 3\npiece 4\npiece 5\n');
  // a command that never pauses: back within a second or so of its first new output, not at the yield
  const chatty = await z.exec({ cmd: 'while :; do echo tick; sleep 0.05; done', workdir: '/', yield_time_ms: 0 });
  const ticks = await poll(chatty.session_handle!, 20_000);
  expect(ticks.result.output).toMatch(/^(tick\n)+$/);
  expect(ticks.ms).toBeLessThan(5_000);
  // output that came between the calls (and went quiet): the poll returns it at once
  const late = await z.exec({ cmd: 'sleep 0.2; echo late; sleep 30', workdir: '/', yield_time_ms: 0 });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const waiting = await poll(late.session_handle!, 10_000);
  expect(waiting.result.output).toBe('late\n');
  expect(waiting.ms).toBeLessThan(1_500);
  // silent: the poll's yield_time_ms is its maximum, and a silent command waits it out
  const silent = await poll(line.session_handle!, 1_500);
  expect(silent.result).toMatchObject({ status: 'running', output: '' });
  expect(silent.ms).toBeGreaterThanOrEqual(1_450);
  // exit ends it too
  const ending = await z.exec({ cmd: 'sleep 0.4; exit 3', workdir: '/', yield_time_ms: 0 });
  const ended = await poll(ending.session_handle!, 10_000);
  expect(ended.result).toMatchObject({ status: 'exited', exit_code: 3 });
  expect(ended.ms).toBeLessThan(5_000);
  for (const handle of [line.session_handle!, burst.session_handle!, chatty.session_handle!, late.session_handle!])
    await z.write({ session_handle: handle, kill_process: true });
});

requirement('stdin.output-since-last', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: 'echo a; sleep 0.6; echo b; sleep 0.6; echo c', workdir: z.root, yield_time_ms: 300 });
  expect(first.output).toBe('a\n');
  const second = await z.write({ session_handle: first.session_handle!, yield_time_ms: 600 });
  expect(second.output).toBe('b\n');
  const third = await z.write({ session_handle: first.session_handle!, yield_time_ms: 5_000 });
  expect(third.output).toBe('c\n');
  expect(third.status).toBe('exited');
});

requirement('stdin.input', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: 'printf "continue? "; read answer; echo "answer=$answer"', workdir: z.root, yield_time_ms: 500 });
  expect(first).toMatchObject({ status: 'running', output: 'continue? ' });
  const second = await z.write({ session_handle: first.session_handle!, chars: 'y\n', yield_time_ms: 5_000 });
  expect(second.status).toBe('exited');
  expect(second.output).toContain('answer=y\n');
});

requirement('stdin.kill', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: 'trap "" TERM INT HUP; echo stubborn; while :; do sleep 1; done', workdir: z.root, yield_time_ms: 500 });
  expect(first.status).toBe('running');
  const killed = await z.write({ session_handle: first.session_handle!, kill_process: true });
  expect(killed).toMatchObject({ status: 'exited', termination_reason: 'killed' });
  expect(killed.summary).toMatch(/^killed after \d+\.\ds$/);
  expect(killed.session_handle).toBeUndefined();
});

requirement('stdin.kill-grandchildren', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const cmd = `sh -c 'sleep 300 & echo $! > "${dir}/grandchild"; wait' & sleep 300 & echo $! > '${dir}/child'; (setsid sleep 300 & echo $! > '${dir}/other-session-parent') ; wait`;
  const first = await z.exec({ cmd, workdir: dir, yield_time_ms: 1_000 });
  expect(first.status).toBe('running');
  const pids = (await z.sh(`cat '${dir}/grandchild' '${dir}/child'`)).trim().split('\n');
  expect(pids).toHaveLength(2);
  for (const pid of pids) expect(await z.sh(`kill -0 ${pid} && echo alive`)).toBe('alive\n');
  await z.write({ session_handle: first.session_handle!, kill_process: true });
  for (const pid of pids) {
    await expect.poll(async () => (await z.sh(`kill -0 ${pid} 2>/dev/null && echo alive || echo gone`)).trim(), { timeout: 5_000 }).toBe('gone');
  }
  // a process that left with setsid is no longer ours to kill; clean it up here
  await z.sh(`kill $(cat '${dir}/other-session-parent') 2>/dev/null; true`);
});

const MADE_UP_HANDLES = ['zs_AAAAAAAAAAAAAAAAAAAAAAAA', '1234', 'session-token'];

// write_stdin on a handle whose command ran to its end and was reported exited.
async function spentHandleResult(z: Zodex): Promise<CallToolResult> {
  const first = await z.exec({ cmd: 'sleep 0.5; echo done', workdir: z.root, yield_time_ms: 100 });
  expect(first.status).toBe('running');
  const { result } = await z.finish(first);
  expect(result.status).toBe('exited');
  return z.call('write_stdin', { session_handle: first.session_handle!, yield_time_ms: 10 });
}

requirement('stdin.unknown-handle', async ({ zodex }) => {
  const z = await zodex();
  for (const handle of MADE_UP_HANDLES) {
    const result = await z.call('write_stdin', { session_handle: handle, yield_time_ms: 10 });
    expect(result.isError, `${handle}: ${textOf(result).slice(0, 300)}`).toBe(true);
  }
});

requirement('stdin.spent-handle', async ({ zodex }) => {
  const z = await zodex();
  const again = await spentHandleResult(z);
  expect(again.isError, textOf(again).slice(0, 300)).toBe(true);
});

requirement('surface.session-codes', async ({ zodex }) => {
  const z = await zodex();
  for (const handle of MADE_UP_HANDLES) {
    expect(textOf(await z.call('write_stdin', { session_handle: handle, yield_time_ms: 10 }))).toMatch(/^UNKNOWN_SESSION: /);
  }
  expect(textOf(await spentHandleResult(z))).toMatch(/^UNKNOWN_SESSION: .*exec_command/);
});

requirement('stdin.handle-not-conversation', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: 'read line; echo "got $line"', workdir: z.root, yield_time_ms: 200 });
  expect(first.status).toBe('running');
  // a second conversation (a second MCP session on the same server) continues the process
  const { connectHttp } = await import('../harness/target.js');
  const other = await connectHttp(z.endpoint.url, z.endpoint.headers);
  try {
    const result = structuredOf<{ output: string; status: string }>(
      await other.client.callTool({ name: 'write_stdin', arguments: { session_handle: first.session_handle, chars: 'hi\n', yield_time_ms: 5_000 } }),
    );
    expect(result.status).toBe('exited');
    expect(result.output).toContain('got hi');
  } finally {
    await other.client.close();
  }
});

requirement('stdin.answer', async ({ zodex }) => {
  const z = await zodex();
  const first = await z.exec({ cmd: 'while read line; do echo "got $line"; done', workdir: z.root, yield_time_ms: 300 });
  expect(first.status).toBe('running');
  let started = Date.now();
  const answer = await z.write({ session_handle: first.session_handle!, chars: 'hello\n', yield_time_ms: 20_000 });
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(answer).toMatchObject({ status: 'running', output: 'hello\ngot hello\n' });
  // the echo arrives at once; the answer a second later: the call waits for the answer
  const slow = await z.exec({ cmd: 'read line; sleep 1; echo "late $line"; sleep 30', workdir: z.root, yield_time_ms: 300 });
  started = Date.now();
  const late = await z.write({ session_handle: slow.session_handle!, chars: 'x\n', yield_time_ms: 20_000 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(late.output).toBe('x\nlate x\n');
  // without echo (as a password prompt reads) the answer still ends the wait
  const silent = await z.exec({ cmd: 'stty -echo; read secret; echo "length ${#secret}"; sleep 30', workdir: z.root, yield_time_ms: 300 });
  const quiet = await z.write({ session_handle: silent.session_handle!, chars: 'hunter2\n', yield_time_ms: 20_000 });
  expect(quiet.output).toBe('length 7\n');
  for (const handle of [first.session_handle!, slow.session_handle!, silent.session_handle!]) await z.write({ session_handle: handle, kill_process: true });
});
