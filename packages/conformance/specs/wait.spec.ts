// Long and interactive commands (issue 13): the yield cap, the early return when a command
// waits for terminal input (and none when it does not), and what a cancelled call does.

import { expect, requirement, test } from '../harness/fixtures.js';
import type { ExecResult, Zodex } from '../harness/zodex.js';

// Runs cmd with a long yield; returns the result and how long the call took.
async function timed(z: Zodex, cmd: string, yieldMs: number, workdir = '/'): Promise<{ result: ExecResult; ms: number }> {
  const started = Date.now();
  const result = await z.exec({ cmd, workdir, yield_time_ms: yieldMs });
  return { result, ms: Date.now() - started };
}

async function expectPrompt(z: Zodex, cmd: string, output?: string): Promise<ExecResult> {
  const { result, ms } = await timed(z, cmd, 20_000);
  expect(result).toMatchObject({ status: 'running', waiting_for_input: true });
  if (output !== undefined) expect(result.output).toBe(output);
  expect(ms, 'returned at the prompt, not at the 20 s yield').toBeLessThan(5_000);
  return result;
}

// Types an answer that makes the command print and exit. The call returns once the program has
// answered (stdin.answer): its exit may come with that result or, under load, with the next poll.
async function answerToExit(z: Zodex, handle: string, chars: string): Promise<ExecResult> {
  let result = await z.write({ session_handle: handle, chars, yield_time_ms: 5_000 });
  let output = result.output;
  for (let poll = 0; poll < 3 && result.status === 'running'; poll++) {
    result = await z.write({ session_handle: handle, yield_time_ms: 5_000 });
    output += result.output;
  }
  return { ...result, output };
}

async function expectNoEarlyReturn(z: Zodex, cmd: string, workdir = '/'): Promise<void> {
  const { result, ms } = await timed(z, cmd, 1_500, workdir);
  expect(result.status, cmd).toBe('running');
  expect(result.waiting_for_input, cmd).toBe(false);
  expect(ms, cmd).toBeGreaterThanOrEqual(1_450);
  await z.write({ session_handle: result.session_handle!, kill_process: true });
}

requirement('wait.max-yield', async ({ zodex }) => {
  const z = await zodex({ args: ['--max-yield-ms', '1500'] });
  await z.exec({ cmd: 'true', workdir: z.root }); // past the one login-shell capture (see exec.yield-window)
  const { result, ms } = await timed(z, 'sleep 30', 60_000);
  expect(result).toMatchObject({ status: 'running', yield_time_ms: 1_500 });
  expect(result.session_handle).toBeTruthy();
  expect(ms).toBeGreaterThanOrEqual(1_450);
  expect(ms).toBeLessThan(6_000);
  const started = Date.now();
  const polled = await z.write({ session_handle: result.session_handle!, yield_time_ms: 1e12 });
  expect(polled).toMatchObject({ status: 'running', yield_time_ms: 1_500 });
  expect(Date.now() - started).toBeLessThan(6_000);
  await z.write({ session_handle: result.session_handle!, kill_process: true });
});

requirement('wait.max-yield-default', async ({ zodex }) => {
  const z = await zodex();
  const clamped = await z.exec({ cmd: 'sleep 0.3; echo ok', workdir: z.root, yield_time_ms: 65_000 });
  expect(clamped).toMatchObject({ status: 'exited', output: 'ok\n', yield_time_ms: 30_000 });
  const within = await z.exec({ cmd: 'echo ok', workdir: z.root, yield_time_ms: 30_000 });
  expect(within.yield_time_ms).toBeUndefined();
});

requirement('wait.input.read', async ({ zodex }) => {
  const z = await zodex();
  const first = await expectPrompt(z, 'read -p \'Continue? [y/N] \' answer; echo "answer=$answer"', 'Continue? [y/N] ');
  const second = await answerToExit(z, first.session_handle!, 'y\n');
  expect(second).toMatchObject({ status: 'exited', output: 'y\nanswer=y\n' });
});

requirement('wait.input.read-silent', async ({ zodex }) => {
  const z = await zodex();
  const first = await expectPrompt(z, `printf 'Password: '; read -s pw; read -s again; echo "same=$([ "$pw" = "$again" ] && echo yes)"`, 'Password: ');
  // typed with echo off, the answer prints nothing: only the next read ends the wait early
  const started = Date.now();
  const second = await z.write({ session_handle: first.session_handle!, chars: 'hunter2\n', yield_time_ms: 20_000 });
  expect(second).toMatchObject({ status: 'running', waiting_for_input: true, output: '' });
  expect(Date.now() - started).toBeLessThan(5_000);
  const third = await answerToExit(z, first.session_handle!, 'hunter2\n');
  expect(third).toMatchObject({ status: 'exited', output: 'same=yes\n' });
});

requirement('wait.input.python', async ({ zodex }) => {
  const z = await zodex();
  const first = await expectPrompt(z, `python3 -c 'print("got", input("name? "))'`, 'name? ');
  const second = await z.write({ session_handle: first.session_handle!, chars: 'ada\n', yield_time_ms: 5_000 });
  expect(second.output).toContain('got ada\n');
});

requirement('wait.input.node-readline', async ({ zodex }) => {
  const z = await zodex();
  const script =
    'const rl = require("readline").createInterface({ input: process.stdin, output: process.stdout }); rl.question("name? ", (a) => { console.log("got " + a); rl.close(); });';
  const first = await expectPrompt(z, `node -e '${script}'`);
  expect(first.output).toContain('name? ');
  const second = await z.write({ session_handle: first.session_handle!, chars: 'ada\n', yield_time_ms: 5_000 });
  expect(second.output).toContain('got ada\n');
});

requirement('wait.input.child', async ({ zodex }) => {
  const z = await zodex();
  const first = await expectPrompt(z, `cd "$HOME" && python3 -c 'input()' && echo after`);
  const second = await answerToExit(z, first.session_handle!, '\n');
  expect(second).toMatchObject({ status: 'exited', exit_code: 0 });
  expect(second.output).toContain('after\n');
});

requirement('wait.no-early.sleep', async ({ zodex }) => {
  const z = await zodex();
  await expectNoEarlyReturn(z, 'sleep 3');
  await expectNoEarlyReturn(z, 'sleep 3 & wait');
});

requirement('wait.no-early.compute', async ({ zodex }) => {
  const z = await zodex();
  const cmd = `python3 -c 'import time
t = time.time()
while time.time() - t < 2: pass
input("now? ")'`;
  const { result, ms } = await timed(z, cmd, 20_000);
  expect(result).toMatchObject({ status: 'running', waiting_for_input: true, output: 'now? ' });
  expect(ms).toBeGreaterThanOrEqual(1_950);
  expect(ms).toBeLessThan(8_000);
  await z.write({ session_handle: result.session_handle!, kill_process: true });
});

requirement('wait.no-early.pipe', async ({ zodex }) => {
  test.setTimeout(60_000);
  const z = await zodex();
  const dir = await z.scratch();
  await expectNoEarlyReturn(z, 'sleep 5 | cat');
  await expectNoEarlyReturn(z, `python3 -c 'import socket; a, b = socket.socketpair(); a.recv(1)'`);
  await expectNoEarlyReturn(z, `python3 -c 'import select, socket; a, b = socket.socketpair(); select.select([a], [], [])'`);
  await expectNoEarlyReturn(z, `mkfifo f; sleep 30 > f & read line < f`, dir);
});

requirement('wait.no-early.printing', async ({ zodex }) => {
  const z = await zodex();
  await expectNoEarlyReturn(z, 'while :; do echo tick; sleep 0.01; done');
  await expectNoEarlyReturn(z, 'while :; do echo tick; sleep 0.2; done');
});

requirement('wait.no-early.timed', async ({ zodex }) => {
  // Programs that wait on the terminal but go on by themselves (issue 23): each runs to its end.
  const z = await zodex();
  const cases = {
    'select on stdin with a timeout between ticks': `python3 -c 'import select, sys
for i in range(40):
  print(i, flush=True); select.select([sys.stdin], [], [], 0.05)'`,
    'a thread in stdin.readline() while the main thread prints and exits': `python3 -c 'import sys, threading, time
threading.Thread(target=sys.stdin.readline, daemon=True).start()
for i in range(40):
  print(i, flush=True); time.sleep(0.05)'`,
  };
  for (const [name, cmd] of Object.entries(cases)) {
    const { result, ms } = await timed(z, cmd, 20_000);
    expect(result, name).toMatchObject({ status: 'exited', exit_code: 0 });
    expect(result.output, name).toBe(Array.from({ length: 40 }, (_, i) => `${i}\n`).join(''));
    expect(ms, name).toBeGreaterThanOrEqual(1_900);
  }
});

requirement('wait.input.timed', async ({ zodex }) => {
  // A wait on the terminal with a timeout counts as a prompt once the command has been quiet 1 s:
  // a prompt that gives up after a minute, and top, which never ends alone and between its
  // redraws waits for a key (q quits it).
  const z = await zodex();
  const prompt = await timed(
    z,
    `python3 -c 'import select, sys
print("continue? [Y/n] (60 s)", end="", flush=True)
select.select([sys.stdin], [], [], 60)'`,
    20_000,
  );
  expect(prompt.result).toMatchObject({ status: 'running', waiting_for_input: true, output: 'continue? [Y/n] (60 s)' });
  expect(prompt.ms).toBeGreaterThanOrEqual(950);
  expect(prompt.ms).toBeLessThan(8_000);
  await z.write({ session_handle: prompt.result.session_handle!, kill_process: true });
  const top = await timed(z, 'top -d 5', 20_000);
  expect(top.result).toMatchObject({ status: 'running', waiting_for_input: true });
  expect(top.ms).toBeLessThan(8_000);
  const quit = await answerToExit(z, top.result.session_handle!, 'q');
  expect(quit).toMatchObject({ status: 'exited', exit_code: 0 });
});

// A call the client abandons (its AbortSignal sends notifications/cancelled).
async function cancelledCall(z: Zodex, name: string, args: Record<string, unknown>, afterMs: number): Promise<void> {
  const abort = new AbortController();
  setTimeout(() => abort.abort(), afterMs);
  await expect(z.client.callTool({ name, arguments: args }, undefined, { signal: abort.signal, timeout: 60_000 })).rejects.toThrow();
}

requirement('cancel.exec-kills', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await cancelledCall(z, 'exec_command', { cmd: 'echo $$ > pid; exec sleep 60', workdir: dir, yield_time_ms: 20_000 }, 1_000);
  const pid = (await z.sh('cat pid', dir)).trim();
  expect(pid).toMatch(/^\d+$/);
  await expect.poll(async () => (await z.sh(`kill -0 ${pid} 2>/dev/null && echo alive || echo gone`)).trim(), { timeout: 5_000 }).toBe('gone');
});

requirement('cancel.poll-keeps', async ({ zodex }) => {
  const z = await zodex();
  // Dots every 50 ms from 0.5 s for 3 s, then "two": a poll takes new output back 1 s after it
  // began at the latest (stdin.poll-ends-on-output), so one started now is still waiting, its
  // new output coming in, when it is cancelled at 0.9 s. Nothing that came must go down with it.
  const dots = 'printf .; sleep 0.05; '.repeat(60);
  const first = await z.exec({ cmd: `echo one; sleep 0.5; ${dots}echo two; sleep 30`, workdir: z.root, yield_time_ms: 200 });
  expect(first).toMatchObject({ status: 'running', output: 'one\n' });
  await cancelledCall(z, 'write_stdin', { session_handle: first.session_handle!, yield_time_ms: 20_000 }, 700);
  let rest = '';
  for (let poll = 0; poll < 20 && !rest.endsWith('two\n'); poll++) {
    const next = await z.write({ session_handle: first.session_handle!, yield_time_ms: 5_000 });
    expect(next.status).toBe('running');
    rest += next.output;
  }
  expect(rest).toBe(`${'.'.repeat(60)}two\n`);
  await z.write({ session_handle: first.session_handle!, kill_process: true });
});

requirement('cancel.stdio-close', async ({ zodex }) => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const z = await zodex();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-cancel-'));
  const pidFile = path.join(dir, 'pid');
  try {
    const call = z.client
      .callTool({ name: 'exec_command', arguments: { cmd: 'echo $$ > pid; exec sleep 60', workdir: dir, yield_time_ms: 20_000 } })
      .catch((error: unknown) => error);
    await expect.poll(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', { timeout: 5_000 }).toBe(true);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    z.server.process.stdin!.end();
    expect(await z.server.exited).toBe(0);
    await call;
    const alive = () => {
      try {
        process.kill(pid, 0);
        return 'alive';
      } catch {
        return 'gone';
      }
    };
    await expect.poll(alive, { timeout: 5_000 }).toBe('gone');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
