// zodexd signals a command's zodex-spawn by number (kill request, hang-up, the fallback kill).
// Numbers wrap at pid_max (32768 here) within minutes when thousands of processes come and go,
// so each signal first checks that the number still names the process it started (its start
// time in /proc): a later process that got the number, e.g. another zodexd, is never hit.

import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killProcessTree, reusedPid, signalProcess, startTimeOf } from '../../src/exec/process/kill.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

// A process of its own group (as zodex-spawn is), and a promise of its end.
function sleeper(): { child: ChildProcess; ended: Promise<string | null> } {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  children.push(child);
  return { child, ended: new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal))) };
}

describe.runIf(process.platform === 'linux')('signals by number', () => {
  it("reads a process's start time, and none for a number no process has", () => {
    const { child } = sleeper();
    expect(startTimeOf(child.pid!)).toMatch(/^\d+$/);
    expect(startTimeOf(2 ** 22 + 1)).toBeUndefined(); // above any pid_max
  });

  it('tells a number now held by another process (a different start time) from the same process', () => {
    const { child } = sleeper();
    const started = startTimeOf(child.pid!);
    expect(reusedPid(child.pid!, started)).toBe(false);
    expect(reusedPid(child.pid!, `${Number(started) - 1}`)).toBe(true); // as if the number had been reused
    expect(reusedPid(2 ** 22 + 1, started)).toBe(false); // no process has it: its group may still be ours
    expect(reusedPid(child.pid!, undefined)).toBe(false); // identity unknown: signalled as before
  });

  it('signalProcess and killProcessTree leave alone the process that got a stale number', async () => {
    const { child, ended } = sleeper();
    const pid = child.pid!;
    const stale = `${Number(startTimeOf(pid)) - 1}`;
    signalProcess(pid, stale, 'SIGTERM');
    killProcessTree(pid, undefined, stale);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(child.exitCode === null && child.signalCode === null, 'the process is untouched').toBe(true);
    killProcessTree(pid, undefined, startTimeOf(pid));
    expect(await ended).toBe('SIGKILL');
  });
});
