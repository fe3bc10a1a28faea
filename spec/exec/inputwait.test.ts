// The input-wait probe on real processes: each way of waiting on the terminal that it claims to
// tell (read, /dev/tty, epoll, poll/select on the terminal alone), the look-alikes it must not
// take for a prompt (select on the terminal and a pipe, epoll without the terminal, sleeping), and
// the waits that end by themselves, which are only 'timed' (a timeout on the terminal wait, or a
// main thread on a timer beside a reading thread).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createInputProbe, type InputState } from '../../src/exec/process/inputwait.js';
import { killProcessTree } from '../../src/exec/process/kill.js';
import { spawnPty } from '../../src/exec/launch/launcher.js';
import type { Terminal } from '../../src/exec/launch/terminal.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');
const linux = process.platform === 'linux';
const running: Terminal[] = [];
afterEach(() => {
  for (const pty of running.splice(0)) {
    killProcessTree(pty.pid);
    pty.dispose();
  }
});

function start(cmd: string): Terminal {
  const pty = spawnPty({
    spawnHelper: HELPER,
    file: '/bin/sh',
    args: ['-c', cmd],
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    cols: 80,
    rows: 24,
  });
  pty.onData(() => {});
  running.push(pty);
  return pty;
}

// The probe's answers for cmd over `ms`, sampled every 50 ms; the command is killed after.
async function answers(cmd: string, ms: number): Promise<InputState[]> {
  const pty = start(cmd);
  const probe = createInputProbe(pty.pid)!;
  const seen: InputState[] = [];
  try {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      seen.push(probe.check());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    running.splice(running.indexOf(pty), 1);
    killProcessTree(pty.pid);
    pty.dispose();
  }
  return seen;
}

const py = (code: string) => `exec python3 -c '${code}'`;

// Each case only waits and samples, so the cases run at once (a busy loop among them included).
describe.runIf(linux).concurrent('input-wait probe (Linux /proc)', () => {
  it.each([
    ['read on the terminal', 'read line'],
    ['read on /dev/tty', 'read line < /dev/tty'],
    ['select on the terminal alone', py('import select, sys; select.select([sys.stdin], [], [])')],
    ['poll on the terminal alone', py('import select; p = select.poll(); p.register(0, select.POLLIN); p.poll()')],
    [
      'epoll watching the terminal',
      py('import select, socket; a, b = socket.socketpair(); e = select.epoll(); e.register(0, select.EPOLLIN); e.register(a, select.EPOLLIN); e.poll()'),
    ],
    ['poll on the terminal with no timeout (more)', py('import select; p = select.poll(); p.register(0, select.POLLIN); p.poll(-1)')],
  ])('tells %s', async (_name, cmd) => {
    const seen = await answers(cmd, 3_000);
    expect(seen.slice(-10).every((state) => state === 'input')).toBe(true);
  });

  it('tells a read in the main thread beside a thread sleeping on a timer (a heartbeat), but while that thread runs', async () => {
    const seen = await answers(
      py('import threading, time\ndef beat():\n  while True: time.sleep(0.2)\nthreading.Thread(target=beat, daemon=True).start()\ninput()'),
      3_000,
    );
    expect(seen.slice(-10)).toContain('input');
    expect(seen.slice(-10)).not.toContain('timed');
  });

  // Issue 23's false alarms: each would go on by itself, so a look sees at most 'timed'.
  it.each([
    [
      'select on the terminal with a timeout between printed ticks',
      py('import select, sys\nfor i in range(200):\n  print(i, flush=True); select.select([sys.stdin], [], [], 0.05)'),
    ],
    [
      'a thread blocked in stdin.readline() while the main thread prints and sleeps',
      py(
        'import sys, threading, time\nthreading.Thread(target=sys.stdin.readline, daemon=True).start()\nfor i in range(200):\n  print(i, flush=True); time.sleep(0.05)',
      ),
    ],
    ['poll with a timeout', py('import select; p = select.poll(); p.register(0, select.POLLIN)\nwhile True: p.poll(200)')],
    ['epoll with a timeout', py('import select; e = select.epoll(); e.register(0, select.EPOLLIN)\nwhile True: e.poll(0.2)')],
    ['top between its redraws', 'exec top -d 0.5'],
  ])('takes %s for a timed wait, never for a prompt', async (_name, cmd) => {
    const seen = await answers(cmd, 2_000);
    expect(seen).not.toContain('input');
    expect(seen).toContain('timed');
  });

  it.each([
    ['sleep', 'sleep 5'],
    ['select on the terminal and a pipe', py('import os, select, sys; r, w = os.pipe(); select.select([sys.stdin, r], [], [])')],
    ['epoll without the terminal', py('import select, socket; a, b = socket.socketpair(); e = select.epoll(); e.register(a, select.EPOLLIN); e.poll()')],
    [
      'epoll watching the terminal for output only',
      py('import select, time; e = select.epoll(); e.register(1, select.EPOLLOUT | select.EPOLLET); e.poll(); time.sleep(5)'),
    ],
    ['a busy loop', py('while True: pass')],
    ['a reader whose shell also runs a busy child', 'sh -c "while :; do :; done" & read line'],
  ])('does not take %s for a prompt', async (_name, cmd) => {
    const seen = await answers(cmd, 2_000);
    expect(seen.filter((state) => state !== 'none')).toEqual([]);
  });
});

describe.runIf(linux)('the terminal drain', () => {
  it('delivers, synchronously, a prompt the event loop has not read yet', async () => {
    const pty = start("sleep 0.3; printf 'name? '; read line");
    const seen: string[] = [];
    pty.onData((bytes) => seen.push(bytes.toString('utf8')));
    const until = Date.now() + 3_000; // the loop is blocked: only drain() can read the prompt now
    while (Date.now() < until && seen.length === 0) {
      pty.drain();
      if (seen.length === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
    expect(seen.join('')).toContain('name? ');
  });
});

describe('input-wait probe elsewhere', () => {
  it('is not offered on a platform other than Linux', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    try {
      expect(createInputProbe(process.pid)).toBeUndefined();
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });
});

describe('input-wait probe on the start path', () => {
  // Every exec_command makes a probe: whether the kernel shows /proc/PID/syscall is read once,
  // not on each command's start.
  it.runIf(process.platform === 'linux')('reads /proc/self/syscall at most once, whatever number of probes it makes', () => {
    createInputProbe(process.pid);
    const read = vi.spyOn(fs, 'readFileSync');
    try {
      for (let i = 0; i < 5; i++) expect(createInputProbe(process.pid)).toBeDefined();
      expect(read.mock.calls.filter(([file]) => file === '/proc/self/syscall')).toHaveLength(0);
    } finally {
      read.mockRestore();
    }
  });
});
