// exec_command: running, exit status, the terminal, escape stripping, summaries, timeouts.

import { expect, requirement, test } from '../harness/fixtures.js';

const SUMMARY_EXITED = /^exited -?\d+ after \d+\.\ds$/;
const SUMMARY_RUNNING = /^still running after \d+\.\ds; use session_handle (\S+) to poll$/;

requirement('exec.finishes-in-window', async ({ zodex }) => {
  const z = await zodex();
  const started = Date.now();
  const result = await z.exec({ cmd: 'echo hello world', workdir: z.root, yield_time_ms: 20_000 });
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(result).toMatchObject({ status: 'exited', output: 'hello world\n', exit_code: 0, termination_reason: 'exit' });
  expect(result.session_handle).toBeUndefined();
});

requirement('exec.exit-code', async ({ zodex }) => {
  const z = await zodex();
  expect(await z.exec({ cmd: 'true', workdir: z.root })).toMatchObject({ status: 'exited', exit_code: 0, termination_reason: 'exit' });
  expect(await z.exec({ cmd: 'exit 42', workdir: z.root })).toMatchObject({ status: 'exited', exit_code: 42, termination_reason: 'exit' });
  expect(await z.exec({ cmd: 'false', workdir: z.root })).toMatchObject({ exit_code: 1 });
});

requirement('exec.pty', async ({ zodex }) => {
  const z = await zodex();
  const result = await z.exec({ cmd: 'test -t 0 && test -t 1 && test -t 2 && echo all-terminals; tty', workdir: z.root });
  expect(result.output).toMatch(/^all-terminals\n\/dev\/\S+\n$/);
});

requirement('exec.ansi-stripped', async ({ zodex }) => {
  const z = await zodex();
  const cmd = String.raw`printf '\033[1;31mred\033[0m \033]0;title\007osc \033(Bcharset \033[2K\033[10Gcursor\n'`;
  const result = await z.exec({ cmd, workdir: z.root });
  expect(result.output).toBe('red osc charset cursor\n');
  expect(result.output).not.toContain('\x1b');
});

requirement('exec.summary', async ({ zodex }) => {
  const z = await zodex();
  expect((await z.exec({ cmd: 'exit 1', workdir: z.root })).summary).toMatch(SUMMARY_EXITED);
  expect((await z.exec({ cmd: 'exit 1', workdir: z.root })).summary).toMatch(/^exited 1 after/);
  const running = await z.exec({ cmd: 'sleep 30', workdir: z.root, yield_time_ms: 200 });
  const match = SUMMARY_RUNNING.exec(running.summary);
  expect(match?.[1]).toBe(running.session_handle);
  expect((await z.write({ session_handle: running.session_handle!, kill_process: true })).summary).toMatch(/^killed after \d+\.\ds$/);
  expect((await z.exec({ cmd: 'sleep 30', workdir: z.root, timeout_ms: 300 })).summary).toMatch(/^timed out after \d+\.\ds$/);
});

requirement('exec.cwd', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const result = await z.exec({ cmd: 'pwd -P', workdir: dir });
  expect(result.cwd).toBe(dir);
  expect(result.output.trim()).toBe((await z.sh(`cd '${dir}' && pwd -P`)).trim());
});

requirement('exec.running-handle', async ({ zodex }) => {
  const z = await zodex();
  const result = await z.exec({ cmd: 'echo started; sleep 30', workdir: z.root, yield_time_ms: 500 });
  expect(result.status).toBe('running');
  expect(result.output).toBe('started\n');
  expect(result.session_handle).toEqual(expect.any(String));
  expect(result.exit_code).toBeUndefined();
  expect(result.termination_reason).toBeUndefined();
  await z.write({ session_handle: result.session_handle!, kill_process: true });
});

requirement('exec.handle-random', async ({ zodex }) => {
  const z = await zodex();
  const handles: string[] = [];
  for (let i = 0; i < 3; i++) {
    const result = await z.exec({ cmd: 'echo $$; sleep 30', workdir: z.root, yield_time_ms: 300 });
    const handle = result.session_handle!;
    expect(handle).toMatch(/^\S+$/);
    // at least 128 bits: 22 characters of base64 (a prefix such as zodex's "zs_" does not count)
    expect(handle.replace(/^[a-z]+_/, '').length).toBeGreaterThanOrEqual(22);
    // The pid as the command printed it: a loaded machine may deliver it after the first result.
    let pid = result.output.trim();
    for (let i = 0; i < 20 && !/^\d+$/.test(pid); i++) pid = `${pid}${(await z.write({ session_handle: handle, yield_time_ms: 1_000 })).output}`.trim();
    expect(pid).toMatch(/^\d+$/);
    expect(handle).not.toContain(pid);
    handles.push(handle);
  }
  expect(new Set(handles).size).toBe(3);
  for (const handle of handles) await z.write({ session_handle: handle, kill_process: true });
});

requirement('exec.timeout', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const started = Date.now();
  const result = await z.exec({ cmd: `(sleep 60; echo late > '${dir}/late') & sleep 60`, workdir: dir, timeout_ms: 500, yield_time_ms: 20_000 });
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(result).toMatchObject({ status: 'exited', termination_reason: 'timeout' });
  expect(result.summary).toMatch(/^timed out after 0\.\ds$/);
});

requirement('exec.timeout-capped', async ({ zodex }) => {
  const z = await zodex({ args: ['--max-exec-timeout-ms', '700'] });
  const started = Date.now();
  const result = await z.exec({ cmd: 'sleep 30', workdir: z.root, timeout_ms: 600_000, yield_time_ms: 20_000 });
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(result.termination_reason).toBe('timeout');
});

requirement('exec.yield-clamped', async ({ zodex }) => {
  const z = await zodex();
  const quick = await z.exec({ cmd: 'sleep 5', workdir: z.root, yield_time_ms: -100 });
  expect(quick.status).toBe('running');
  const huge = await z.write({ session_handle: quick.session_handle!, yield_time_ms: 1e12 });
  expect(huge.status).toBe('exited');
  expect(huge.exit_code).toBe(0);
});

requirement('exec.environment', async ({ zodex }) => {
  const z = await zodex();
  const result = await z.exec({ cmd: 'echo "$PAGER|$GIT_PAGER"; stty size', workdir: z.root });
  expect(result.output).toBe('cat|cat\n50 200\n');
});

requirement('exec.login-environment', async ({ zodex }) => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-home-'));
  fs.writeFileSync(path.join(home, '.bash_profile'), 'export ZODEX_FROM_LOGIN=from-login-profile\n');
  // The login shell is the one the user's passwd entry names, not $SHELL (issue 23: with
  // SHELL=/bin/sh, Local mode ran dash and skipped ~/.bash_profile).
  const login = os.userInfo().shell ?? '/bin/bash';
  try {
    const z = await zodex({ args: ['--mode', 'local'], env: { HOME: home, SHELL: '/bin/sh' } });
    const result = await z.exec({ cmd: 'echo "$0|$SHELL|$ZODEX_FROM_LOGIN"', workdir: z.root });
    const [shell, variable, fromProfile] = result.output.trimEnd().split('|');
    expect(shell).toBe(login);
    expect(variable).toBe(login); // SHELL names the login shell, as login(1) sets it
    if (path.basename(login) === 'bash') expect(fromProfile).toBe('from-login-profile');
    // Another shell, by flag (or ZODEX_SHELL)
    const other = await zodex({ args: ['--mode', 'local', '--shell', '/bin/sh'], env: { HOME: home } });
    expect((await other.exec({ cmd: 'echo "$0"', workdir: other.root })).output).toBe('/bin/sh\n');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

requirement('exec.no-lost-output', async ({ zodex }) => {
  test.setTimeout(180_000); // 100 runs, some of a megabyte
  const z = await zodex();
  const sizes = [1, 4095, 4096, 65_537, 1_000_000];
  for (let run = 0; run < 100; run++) {
    const n = sizes[run % sizes.length]!;
    const result = await z.exec({ cmd: `head -c ${n} /dev/zero | tr '\\0' x`, workdir: z.root, yield_time_ms: 30_000 });
    expect(result.status).toBe('exited');
    if (result.output_file === undefined) {
      expect(result.output.length, `run ${run}: ${n} bytes written`).toBe(n);
      expect(result.output).toBe('x'.repeat(n));
    } else {
      expect(result.output_chars, `run ${run}: ${n} bytes written`).toBe(n);
      expect((await z.sh(`stat -c %s '${result.output_file}'`)).trim()).toBe(String(n));
    }
  }
});

requirement('progress.long-yield', async ({ zodex }) => {
  test.setTimeout(90_000);
  const z = await zodex();
  const stamps: number[] = [];
  const started = Date.now();
  // The client's own timeout is shorter than the yield: only progress keeps the call alive.
  const result = await z.exec(
    { cmd: 'sleep 25; echo waited', workdir: z.root, yield_time_ms: 40_000 },
    { timeout: 12_000, onprogress: () => stamps.push(Date.now()) },
  );
  expect(result).toMatchObject({ status: 'exited', output: 'waited\n' });
  expect(stamps.length).toBeGreaterThanOrEqual(2);
  const gaps = [stamps[0]! - started, ...stamps.slice(1).map((stamp, i) => stamp - stamps[i]!)];
  expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000);
});

requirement('exec.yield-window', async ({ zodex }) => {
  const z = await zodex();
  // The first command of a Local-mode server also waits for the one login-shell capture (up to
  // its 5 s timeout when an rc file hangs): measure the yield window on a warmed-up server.
  await z.exec({ cmd: 'true', workdir: z.root });
  const started = Date.now();
  const result = await z.exec({ cmd: 'echo early; sleep 20', workdir: z.root, yield_time_ms: 1_500 });
  const waited = Date.now() - started;
  expect(result).toMatchObject({ status: 'running', output: 'early\n' });
  expect(waited).toBeGreaterThanOrEqual(1_400);
  expect(waited).toBeLessThan(6_000);
  await z.write({ session_handle: result.session_handle!, kill_process: true });
});

requirement('exec.runs-as-user', async ({ zodex }) => {
  const os = await import('node:os');
  const z = await zodex();
  const result = await z.exec({ cmd: 'id -u; echo "$HOME"', workdir: z.root });
  expect(result.output).toBe(`${process.getuid!()}\n${os.homedir()}\n`);
});
