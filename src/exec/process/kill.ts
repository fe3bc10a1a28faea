// Ending every process a command started, when zodex-spawn cannot (normally it does: see
// native/spawn-kill.c, native/PROTOCOL.md). It leads its own session and process group, so `kill(-pgid)` reaches
// children and grandchildren; on Linux a /proc sweep also reaches members of the session that
// moved to another process group and every descendant of zodex-spawn, which, as a child
// subreaper, inherits the command's orphans (even daemons that left the session with setsid);
// the command's cgroup, when it has one, is killed first (cgroup.ts).

import fs from 'node:fs';
import { killCgroup } from './cgroup.js';

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone, or never ours
  }
}

// A file or folder of /proc, or undefined / nothing when the process ended meanwhile (or no /proc).
export function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
}

export function readDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

// The fields of a /proc/PID/stat line after `pid (comm)` (comm may hold spaces and parentheses):
// [0] state, [1] ppid, [2] pgrp, [3] session, [4] tty_nr, ... [19] starttime.
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// The kernel's start time of `pid` (field 22 of /proc/PID/stat, in clock ticks since boot): it
// tells a process from a later one that got its number. Undefined when there is no such process,
// or no /proc.
export function startTimeOf(pid: number): string | undefined {
  const stat = pid > 0 ? readText(`/proc/${pid}/stat`) : undefined;
  return stat === undefined ? undefined : statFields(stat)[19];
}

// True when `pid` now names another process than the one that started at `startTime`: its number
// was reused (pids wrap at pid_max, 32768 here, within minutes when a test run forks thousands),
// so neither it nor a group of that number is ours to signal. A number is never reused while a
// process group or session still carries it, so when no process has it, its group may still be
// signalled: what is left of the command.
export function reusedPid(pid: number, startTime: string | undefined): boolean {
  if (startTime === undefined) return false;
  const now = startTimeOf(pid);
  return now !== undefined && now !== startTime;
}

// Sends `signal` to `pid` unless its number went to another process since `startTime`.
export function signalProcess(pid: number, startTime: string | undefined, signal: NodeJS.Signals): void {
  if (!reusedPid(pid, startTime)) signalQuietly(pid, signal);
}

interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
}

function readProcesses(): ProcEntry[] {
  const processes: ProcEntry[] = [];
  for (const entry of readDir('/proc')) {
    const pid = Number(entry);
    const stat = Number.isInteger(pid) && pid > 1 ? readText(`/proc/${entry}/stat`) : undefined;
    if (stat === undefined) continue;
    const fields = statFields(stat);
    processes.push({ pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]) });
  }
  return processes;
}

// Every process that belongs to the command led by `leader`: its process group, its session,
// and all their descendants.
export function commandProcesses(leader: number): number[] {
  const processes = readProcesses();
  const children = new Map<number, number[]>();
  for (const proc of processes) {
    const siblings = children.get(proc.ppid);
    if (siblings) siblings.push(proc.pid);
    else children.set(proc.ppid, [proc.pid]);
  }
  const found = new Set<number>();
  const queue = processes.filter((proc) => proc.pid === leader || proc.pgrp === leader || proc.session === leader).map((proc) => proc.pid);
  while (queue.length > 0) {
    const pid = queue.pop()!;
    if (found.has(pid)) continue;
    found.add(pid);
    for (const child of children.get(pid) ?? []) queue.push(child);
  }
  return [...found];
}

// `leader` and its descendants, from the kernel's per-thread child lists (cheap: no scan of all
// of /proc). zodex-spawn is a subreaper, so a command's orphans stay its descendants. Linux only.
export function descendantProcesses(leader: number): number[] {
  const found: number[] = [];
  const queue = [leader];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    const tasks = readDir(`/proc/${pid}/task`);
    if (tasks.length === 0) continue; // gone
    found.push(pid);
    for (const task of tasks) {
      for (const child of (readText(`/proc/${pid}/task/${task}/children`) ?? '').split(' ')) if (child) queue.push(Number(child));
    }
  }
  return found;
}

// Kills the command led by `leader`, zodex-spawn included: the fallback for when zodex-spawn
// cannot do it itself (it died, or did not answer a kill request in time).
// With `startTime` (the leader's, from startTimeOf), nothing is signalled by number once the
// leader's number belongs to another process (the cgroup is still killed).
export function killProcessTree(leader: number, cgroup?: string, startTime?: string): void {
  if (cgroup) killCgroup(cgroup);
  if (reusedPid(leader, startTime)) return;
  signalQuietly(-leader, 'SIGKILL');
  if (process.platform === 'linux') for (const pid of commandProcesses(leader)) signalQuietly(pid, 'SIGKILL');
}
