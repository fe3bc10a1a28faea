// A cgroup v2 folder per zodexd, so that a kill reaches every process a command started, even a
// daemon that keeps re-forking with setsid. Flow: openCgroupFolder() finds a cgroup2 mount where
// this process may create folders and makes `zodex-PID-N` there; zodex-spawn (given it as
// ZODEX_CGROUP) puts each command in a cgroup NONCE below it and kills through `cgroup.kill`;
// zodexd removes the folder at shutdown and sweeps those of dead servers at start. Without one,
// zodex-spawn's /proc sweep (repeated until nothing is left) is the mechanism.

import fs from 'node:fs';
import path from 'node:path';
import { processExists } from '../../fsutil.js';

const PREFIX = 'zodex-';
let opened = 0; // folders this process made (several engines in one process: tests)

export interface CgroupFolder {
  dir: string;
  // true when the kernel has cgroup.kill (5.14); else freeze, then SIGKILL every member
  atomicKill: boolean;
}

// The cgroup2 mount points, from /proc/self/mountinfo (field 5 is the mount point; the type
// follows the " - " separator).
export function cgroup2Mounts(mountinfo = '/proc/self/mountinfo'): string[] {
  let text: string;
  try {
    text = fs.readFileSync(mountinfo, 'utf8');
  } catch {
    return [];
  }
  const mounts: string[] = [];
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!after?.startsWith('cgroup2 ')) continue;
    const point = before?.split(' ')[4];
    if (point) mounts.push(point.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))));
  }
  return mounts;
}

// Makes this server's folder on the first cgroup2 mount that allows it, or says why none did.
export function openCgroupFolder(): CgroupFolder | { reason: string } {
  if (process.platform !== 'linux') return { reason: 'not Linux' };
  const mounts = cgroup2Mounts();
  if (mounts.length === 0) return { reason: 'no cgroup2 hierarchy is mounted' };
  let reason = '';
  for (const mount of mounts) {
    const dir = path.join(mount, `${PREFIX}${process.pid}-${++opened}`);
    try {
      fs.mkdirSync(dir);
      const probe = path.join(dir, 'probe');
      fs.mkdirSync(probe); // the folder's children are where commands go: they must work too
      fs.rmdirSync(probe);
      return { dir, atomicKill: fs.existsSync(path.join(dir, 'cgroup.kill')) };
    } catch (error) {
      reason = `${mount}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
      try {
        fs.rmdirSync(dir);
      } catch {
        // never made
      }
    }
  }
  return { reason: `no writable cgroup2 hierarchy (${reason})` };
}

function writeQuietly(file: string, text: string): boolean {
  try {
    fs.writeFileSync(file, text);
    return true;
  } catch {
    return false;
  }
}

// Kills every member of one command's cgroup (zodex-spawn is not one: it stays outside).
export function killCgroup(dir: string): void {
  if (writeQuietly(path.join(dir, 'cgroup.kill'), '1')) return;
  writeQuietly(path.join(dir, 'cgroup.freeze'), '1');
  let members: string[] = [];
  try {
    members = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n');
  } catch {
    return;
  }
  for (const member of members) {
    const pid = Number(member);
    if (pid > 1)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
  }
  writeQuietly(path.join(dir, 'cgroup.freeze'), '0');
}

// Kills what is left in a server's folder and removes it, waiting up to `waitMs` for the last
// members to exit (a cgroup with members cannot be removed). True once it is gone.
export async function removeCgroupFolder(dir: string, waitMs = 1_000): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let children: string[] = [];
    try {
      children = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    }
    for (const child of children) {
      killCgroup(path.join(dir, child));
      try {
        fs.rmdirSync(path.join(dir, child));
      } catch {
        // still has members, or zodex-spawn removed it first
      }
    }
    try {
      fs.rmdirSync(dir);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    }
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// Removes the folders of servers that died without removing theirs (their pid is gone).
export async function sweepStaleCgroupFolders(mounts = cgroup2Mounts()): Promise<number> {
  let removed = 0;
  for (const mount of mounts) {
    let names: string[];
    try {
      names = fs.readdirSync(mount);
    } catch {
      continue;
    }
    for (const name of names) {
      const match = /^zodex-(\d+)-\d+$/.exec(name);
      if (!match || Number(match[1]) === process.pid || processExists(Number(match[1]))) continue;
      if (await removeCgroupFolder(path.join(mount, name), 200)) removed++;
    }
  }
  return removed;
}
