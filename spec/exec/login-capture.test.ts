// The one login-shell capture of Local mode: it reads the user's environment, and it never
// kills a slow shell mid-rc-file. The rc files here mimic pyenv's rehash: a child takes a lock
// file (noclobber), holds it for a while and removes it on exit; killed with SIGKILL, it leaves
// the lock behind and every later login shell of the user waits for it.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLoginEnvironment } from '../../src/exec/environment.js';

const ZODEXD = path.resolve(import.meta.dirname, '../../dist/cli/zodexd.js');
const homes: string[] = [];

// A HOME whose .bash_profile exports a variable and, with holdMs, runs a lock-holding child.
function home(holdMs = 0): { dir: string; lock: string; started: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-capture-'));
  homes.push(dir);
  const lock = path.join(dir, 'lock');
  const started = path.join(dir, 'started');
  const hold = holdMs
    ? `bash -c 'set -o noclobber; : > "$HOME/lock" || exit 1; trap "rm -f \\"\\$HOME/lock\\"" EXIT; : > "$HOME/started"; sleep ${holdMs / 1000}'\n`
    : '';
  fs.writeFileSync(path.join(dir, '.bash_profile'), `${hold}export ZODEX_FROM_PROFILE=yes\n`);
  return { dir, lock, started };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

afterEach(() => {
  for (const dir of homes.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('captureLoginEnvironment', () => {
  it("returns the login shell's environment, with the policy applied", async () => {
    const { dir } = home();
    const capture = captureLoginEnvironment('/bin/bash', { remove: [], set: { HOME: dir } });
    const setup = await capture.setup;
    expect(setup.source).toBe('/bin/bash -l');
    expect(setup.env).toMatchObject({ ZODEX_FROM_PROFILE: 'yes', HOME: dir, TERM: 'dumb' });
  });

  it('stops waiting at the timeout but lets the shell finish its rc files, which release their lock', async () => {
    const { dir, lock, started } = home(1_500);
    const logs: string[] = [];
    const begun = Date.now();
    const capture = captureLoginEnvironment('/bin/bash', { remove: [], set: { HOME: dir } }, { timeoutMs: 300, log: (line) => logs.push(line) });
    const setup = await capture.setup;
    expect(Date.now() - begun).toBeLessThan(1_400);
    expect(setup.source).toMatch(/^server environment \(\/bin\/bash -lc gave no environment within 300 ms/);
    expect(setup.env.ZODEX_FROM_PROFILE).toBeUndefined();
    expect(fs.existsSync(started)).toBe(true);
    expect(fs.existsSync(lock), 'the rc file still holds its lock').toBe(true);
    expect(await until(() => !fs.existsSync(lock), 5_000), 'the lock was released').toBe(true);
    expect(await until(() => logs.length > 0, 2_000)).toBe(true);
    expect(logs[0]).toMatch(/ended after \d+ ms, past the 300 ms wait/);
  });

  it('stop() ends the shell alone: what its rc file started finishes and releases its lock', async () => {
    const { dir, lock, started } = home(1_000);
    const capture = captureLoginEnvironment('/bin/bash', { remove: [], set: { HOME: dir } }, { timeoutMs: 200 });
    await capture.setup;
    expect(await until(() => fs.existsSync(started), 2_000)).toBe(true);
    capture.stop();
    expect(fs.existsSync(lock)).toBe(true);
    expect(await until(() => !fs.existsSync(lock), 5_000), 'the lock was released').toBe(true);
  });

  it('a SIGKILL of zodexd and its whole process group does not reach the capture: the lock is released', async () => {
    const { dir, lock, started } = home(1_500);
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-capture-state-'));
    homes.push(state);
    const zodexd = spawn(process.execPath, [ZODEXD], {
      env: { ...process.env, HOME: dir, SHELL: '/bin/bash', XDG_STATE_HOME: state },
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true, // its own process group, as a client that kills the group on exit starts it
    });
    try {
      expect(await until(() => fs.existsSync(started), 10_000), 'the login shell ran its rc file').toBe(true);
      process.kill(-zodexd.pid!, 'SIGKILL');
      expect(fs.existsSync(lock)).toBe(true);
      expect(await until(() => !fs.existsSync(lock), 5_000), 'the lock was released').toBe(true);
    } finally {
      try {
        process.kill(-zodexd.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});
