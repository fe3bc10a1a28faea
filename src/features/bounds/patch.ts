// apply_patch inside the bounds commands have: zodexd writes the files itself, so it applies the
// same rule zodex-spawn gives commands. A path under a denied path (the governed write modes: the
// credential stores) fails its operation with CREDENTIAL_STORE_DENIED, read or write; with the
// sandbox, a write outside the workdir, the writable roots and the private /tmp fails with
// SANDBOX_WRITE_DENIED; a path under /tmp means the private /tmp, as it does for commands.
// The patch engine's seam (patch/port.ts), implemented: patchBoundary(bounds) is what app/
// hands the tools. Flow: applyPatch -> locate() (the private /tmp) -> check() per operation, before planning ->
// boundedFs(): every write, link, rename and removal done through the folder it actually opened
// (/proc/self/fd/N/NAME, the folder's real path checked), every file read checked once open, so a
// symlink swapped in between a check and a write cannot lead the write elsewhere.

import fs from 'node:fs';
import path from 'node:path';
import type { SandboxMode } from '../../bounds/modes.js';
import { BoundsDenied, type FsPort, type PatchBoundary, type PatchGuard, type TempHandle } from '../../patch/port.js';

// The rule commands have, for apply_patch, which zodexd carries out itself: an operation on a
// path that is (or lies below) a denied path fails (the governed modes: the credential stores),
// and with the sandbox an operation that writes outside the call's workdir, the writable roots and
// the private /tmp fails; a path under /tmp means the private /tmp, as it does for commands.
export interface PatchBounds {
  denied: string[];
  sandbox: SandboxMode;
  writableRoots: string[];
  privateTmp: string | undefined;
}

export const UNBOUNDED_PATCHES: PatchBounds = { denied: [], sandbox: 'off', writableRoots: [], privateTmp: undefined };

// The patch engine's seam for these bounds, read at each call (finish() completes `denied` once
// the login shell's environment is known).
export function patchBoundary(bounds: PatchBounds): PatchBoundary {
  return (workdir) => patchGuard(bounds, workdir);
}

function beneath(file: string, root: string): boolean {
  return root === '/' || file === root || file.startsWith(`${root}/`);
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

// The real path of `file` as far as it exists, with the missing rest appended.
function resolveExisting(file: string): string {
  const missing: string[] = [];
  let at = file;
  for (;;) {
    try {
      return path.join(fs.realpathSync(at), ...missing.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return file;
      missing.push(path.basename(at));
      at = parent;
    }
  }
}

// The real path of an open descriptor (Linux's /proc/self/fd link).
function realOfFd(fd: number): string {
  return fs.readlinkSync(`/proc/self/fd/${fd}`);
}

// The guard of one apply_patch call in `workdir`; undefined when nothing bounds it.
export function patchGuard(bounds: PatchBounds, workdir: string): PatchGuard | undefined {
  const sandboxed = bounds.sandbox !== 'off';
  if (!sandboxed && bounds.denied.length === 0) return undefined;
  const realWorkdir = realOrSelf(workdir);
  const writable = sandboxed
    ? [...(bounds.sandbox === 'workspace-write' ? [realWorkdir, ...bounds.writableRoots] : []), ...(bounds.privateTmp ? [realOrSelf(bounds.privateTmp)] : [])]
    : [];
  // Seen where they are, not in the private /tmp: the workdir (read-only, in read-only) and the roots.
  const rootsUnderTmp = [workdir, realWorkdir, ...(bounds.sandbox === 'workspace-write' ? bounds.writableRoots : [])].filter((root) => beneath(root, '/tmp'));
  // As zodex-spawn: no private /tmp when /tmp itself is inside a writable root or the workdir.
  const privateTmp =
    sandboxed &&
    bounds.privateTmp &&
    ![workdir, realWorkdir, ...(bounds.sandbox === 'workspace-write' ? bounds.writableRoots : [])].some((root) => beneath('/tmp', root))
      ? bounds.privateTmp
      : undefined;
  // The stores as they are now: real paths, and the inode of each that exists (a hard link elsewhere).
  const deniedReal: string[] = [];
  const deniedInodes = new Set<string>();
  for (const denied of bounds.denied) {
    deniedReal.push(denied);
    try {
      deniedReal.push(fs.realpathSync(denied));
      const stat = fs.statSync(denied);
      if (stat.isFile()) deniedInodes.add(`${stat.dev}:${stat.ino}`);
    } catch {
      // not there now
    }
  }
  const why = (real: string, shown: string, inode?: string): BoundsDenied | undefined => {
    if (deniedReal.some((denied) => beneath(real, denied)) || (inode !== undefined && deniedInodes.has(inode))) {
      return new BoundsDenied(
        'CREDENTIAL_STORE_DENIED',
        `${shown} is a credential store (or lies in one) that commands cannot reach in this write mode; apply_patch leaves it alone too.`,
      );
    }
    if (sandboxed && !writable.some((root) => beneath(real, root))) {
      const where =
        bounds.sandbox === 'workspace-write'
          ? `the workdir ${workdir}, /tmp${bounds.writableRoots.length > 0 ? ` and ${bounds.writableRoots.join(', ')}` : ''}`
          : '/tmp';
      return new BoundsDenied('SANDBOX_WRITE_DENIED', `${shown} is outside what the sandbox (${bounds.sandbox}) lets commands write: ${where}.`);
    }
    return undefined;
  };
  const inodeOf = (file: string): string | undefined => {
    try {
      const stat = fs.statSync(file);
      return `${stat.dev}:${stat.ino}`;
    } catch {
      return undefined;
    }
  };
  const locate = (absPath: string): string => {
    if (!privateTmp || !beneath(absPath, '/tmp') || beneath(absPath, privateTmp)) return absPath;
    if (rootsUnderTmp.some((root) => beneath(absPath, root))) return absPath;
    return path.join(privateTmp, path.relative('/tmp', absPath));
  };
  return {
    locate,
    check: (absPath, shown) => why(resolveExisting(absPath), shown, inodeOf(absPath)),
    wrap: (port) => boundedFs(port, why),
  };
}

type Why = (real: string, shown: string, inode?: string) => BoundsDenied | undefined;

// Runs `act` with `file`'s folder open: `at` is the path of `file` through that descriptor, `real`
// its real path (folder resolved, name as is), checked first.
async function throughFolder<T>(file: string, why: Why, act: (at: string, real: string) => Promise<T>): Promise<T> {
  const fd = fs.openSync(path.dirname(file), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    const real = path.join(realOfFd(fd), path.basename(file));
    let inode: string | undefined;
    try {
      const stat = fs.lstatSync(`/proc/self/fd/${fd}/${path.basename(file)}`);
      if (stat.isFile()) inode = `${stat.dev}:${stat.ino}`;
    } catch {
      // a file still to be made
    }
    const denied = why(real, file, inode);
    if (denied) throw denied;
    return await act(`/proc/self/fd/${fd}/${path.basename(file)}`, real);
  } finally {
    fs.closeSync(fd);
  }
}

function boundedFs(port: FsPort, why: Why): FsPort {
  const checkOpen = (fd: number, file: string) => {
    const stat = fs.fstatSync(fd);
    const denied = why(realOfFd(fd), file, `${stat.dev}:${stat.ino}`);
    if (denied) throw denied;
  };
  return {
    realpath: async (file) => {
      const real = await port.realpath(file);
      const denied = why(real, file);
      if (denied) throw denied;
      return real;
    },
    stat: (file) => port.stat(file),
    statExact: (file) => port.statExact(file),
    openRead: async (file) => {
      const handle = await port.openRead(file);
      try {
        checkOpen(handle.fd, file);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return handle;
    },
    // Each missing level is made through its parent's descriptor, the parent checked.
    mkdirp: async (folder) => {
      const levels: string[] = [];
      for (let at = folder; !fs.existsSync(at); at = path.dirname(at)) levels.unshift(at);
      for (const level of levels) {
        await throughFolder(level, why, async (at) => {
          try {
            fs.mkdirSync(at);
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          }
        });
      }
    },
    open: (file, flags, mode) => throughFolder(file, why, (at) => port.open(at, flags, mode) as Promise<TempHandle>),
    link: (existing, newPath) => throughFolder(existing, why, (from) => throughFolder(newPath, why, (to) => port.link(from, to))),
    appendFile: (file, data) => throughFolder(file, why, (at) => port.appendFile(at, data)),
    rename: (from, to) => throughFolder(from, why, (a) => throughFolder(to, why, (b) => port.rename(a, b))),
    unlink: (file) => throughFolder(file, why, (at) => port.unlink(at)),
  };
}
