// Making a folder and its missing parents without Node's `recursive: true`, which on Node 20
// spins forever when mkdir answers ENOENT for a path whose parent exists (e.g. under /proc):
// a patch adding /proc/x/y, or a state dir there, would hang the server. Here each level is
// tried once and the error surfaces.

import fs from 'node:fs';
import path from 'node:path';

function notADirectory(dir: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', path: dir });
}

export function mkdirpSync(dir: string, mode?: number): void {
  try {
    fs.mkdirSync(dir, { mode });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (!fs.statSync(dir).isDirectory()) throw notADirectory(dir);
      return;
    }
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    mkdirpSync(parent, mode);
    try {
      fs.mkdirSync(dir, { mode });
    } catch (retry) {
      if ((retry as NodeJS.ErrnoException).code !== 'EEXIST' || !fs.statSync(dir).isDirectory()) throw retry;
    }
  }
}

export async function mkdirp(dir: string, mode?: number): Promise<void> {
  try {
    await fs.promises.mkdir(dir, { mode });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (!(await fs.promises.stat(dir)).isDirectory()) throw notADirectory(dir);
      return;
    }
    const parent = path.dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
    await mkdirp(parent, mode);
    try {
      await fs.promises.mkdir(dir, { mode });
    } catch (retry) {
      if ((retry as NodeJS.ErrnoException).code !== 'EEXIST' || !(await fs.promises.stat(dir)).isDirectory()) throw retry;
    }
  }
}

// Makes one private folder level (`mode`, default 0700) unless it exists: true when this call
// made it. Any failure but EEXIST throws. An existing folder is never chmod-ed: callers then
// check it with privateFolderProblem() and refuse a wrong mode, so that the operator notices.
export function mkdirPrivate(dir: string, mode = 0o700): boolean {
  try {
    fs.mkdirSync(dir, { mode });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  }
}

// What keeps `dir` from being a private folder of this user, or undefined when nothing does:
// it must be a real directory (never a symbolic link), belong to this user, and be closed to
// others (strict: 0700) or at least not writable by them. `guards` names what others could
// otherwise reach or replace, for the message.
export function privateFolderProblem(dir: string, strict: boolean, guards: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    return `cannot be examined (${(error as NodeJS.ErrnoException).code})`;
  }
  if (stat.isSymbolicLink()) return 'is a symbolic link; refusing to follow it';
  if (!stat.isDirectory()) return 'is not a directory';
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    return `belongs to uid ${stat.uid}, not to this user (uid ${process.getuid()})`;
  }
  if ((stat.mode & (strict ? 0o077 : 0o022)) !== 0) {
    const mode = (stat.mode & 0o7777).toString(8).padStart(3, '0'); // 1777 stays 1777 (sticky bit)
    return strict
      ? `has mode ${mode}, so other users can reach ${guards}; run \`chmod 700 ${dir}\``
      : `has mode ${mode}, so other users can replace ${guards}; run \`chmod go-w ${dir}\``;
  }
  return undefined;
}

// Whether process `pid` still exists (another user's counts: EPERM). What decides that something
// named after a process is a leftover: a cgroup folder, a temp or private folder, a server's row.
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
