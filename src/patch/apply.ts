// The only module that writes: it carries out one operation's Steps through a small fs port.
// Flow: write = sweep stale temp files of the folder (sweep.ts) -> mkdir -p -> create
// `.<name>.zodex-<pid>-<random>.tmp` beside the target (O_EXCL, old mode kept) -> write -> for a
// file that was read: hard-link the old file as `.old`, check it is unchanged (guard.ts) -> rename
// over the target -> re-check the old inode; if it changed put it back (plus what was appended to
// the patched file meanwhile) -> drop the `.old` link.
// A failed write removes its temp file. Not fsync'd: atomic for readers and for a crash of this
// process, not for a power loss.

import { randomBytes } from 'node:crypto';
import fsPromises from 'node:fs/promises';
import path from 'node:path';
import { mkdirp } from '../fsutil.js';
import { BoundsDenied, type FsPort, type TempHandle } from './port.js';
import { checkStamp, difference, FileChangedError, heldForWriting, heldMessage, type Stamp, stampOf } from './guard.js';
import type { FailureCode, FileProbe, FileReader, Step } from './plan.js';
import { sweepFolder, tempName } from './sweep.js';

export const nodeFs: FsPort = {
  ...fsPromises,
  openRead: (file: string) => fsPromises.open(file, 'r'),
  statExact: (file: string) => fsPromises.stat(file, { bigint: true }),
  mkdirp: (folder: string) => mkdirp(folder),
};

const NEW_FILE_MODE = 0o666; // before the umask, as any editor creates files
const MAX_NAME_IN_TEMP = 190; // keeps `.<name>.zodex-<pid>-<random>.tmp` under NAME_MAX (255)

// A reader for one operation: it keeps the descriptor and stamp of every file it read, for the
// checks before and after the rename; `release` closes them.
export function fsReader(fs: FsPort): FileReader & { stamps: Map<string, Stamp>; release(): Promise<void> } {
  const stamps = new Map<string, Stamp>();
  return {
    stamps,
    async probe(absPath: string): Promise<FileProbe> {
      let realPath: string;
      try {
        realPath = await fs.realpath(absPath);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', realPath: absPath, mode: 0 };
        throw error;
      }
      const stats = await fs.stat(realPath);
      const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
      return { kind, realPath, mode: stats.mode & 0o7777 };
    },
    async read(realPath: string): Promise<Uint8Array> {
      const handle = await fs.openRead(realPath);
      try {
        stamps.set(realPath, stampOf(realPath, handle, await handle.stat({ bigint: true }))); // before reading
        return await handle.readFile();
      } catch (error) {
        stamps.delete(realPath);
        await handle.close().catch(() => undefined);
        throw error;
      }
    },
    async release() {
      for (const stamp of stamps.values()) await stamp.handle.close().catch(() => undefined);
      stamps.clear();
    },
  };
}

export interface StepsOutcome {
  /** How many steps took effect (the first one is the operation's visible change). */
  completed: number;
  error?: { code: FailureCode; reason: string };
}

export async function runSteps(steps: readonly Step[], fs: FsPort, stamps: ReadonlyMap<string, Stamp> = new Map()): Promise<StepsOutcome> {
  for (const [completed, step] of steps.entries()) {
    try {
      for (const stamp of stamps.values()) await checkStamp(stamp, fs.statExact);
      if (step.kind === 'write') await writeAtomically(fs, step.target, step.content, step.mode, stamps.get(step.target));
      else await fs.unlink(step.target);
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      const done = completed > 0 ? 'the new file was written, but ' : '';
      if (error instanceof BoundsDenied) return { completed, error: { code: error.code, reason: error.message } };
      if (error instanceof FileChangedError) {
        return { completed: completed + (error.applied ? 1 : 0), error: { code: 'FILE_CHANGED_DURING_PATCH', reason: `${done}${cause}` } };
      }
      return step.kind === 'write'
        ? { completed, error: { code: 'WRITE_FAILED', reason: `${done}could not write ${step.target}: ${cause}` } }
        : { completed, error: { code: 'DELETE_FAILED', reason: `${done}could not remove ${step.target}: ${cause}` } };
    }
  }
  return { completed: steps.length };
}

async function writeAtomically(fs: FsPort, target: string, content: string, mode: number | undefined, stamp: Stamp | undefined): Promise<void> {
  const folder = path.dirname(target);
  await sweepFolder(folder);
  await fs.mkdirp(folder);
  const random = randomBytes(6).toString('hex');
  const temp = tempName(target, 'tmp', random, MAX_NAME_IN_TEMP);
  const handle = await fs.open(temp, 'wx', mode ?? NEW_FILE_MODE);
  let backup: string | undefined;
  try {
    try {
      await handle.writeFile(content);
      if (mode !== undefined) await handle.chmod(mode); // the umask may have cleared bits of the old mode
    } finally {
      await handle.close();
    }
    if (stamp) {
      backup = await keepOld(fs, target, tempName(target, 'old', random, MAX_NAME_IN_TEMP));
      if (await heldForWriting(stamp.handle)) throw new FileChangedError(heldMessage(stamp), false);
      await checkStamp(stamp, fs.statExact);
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    if (backup) await fs.unlink(backup).catch(() => undefined);
    throw error;
  }
  if (stamp) await afterRename(fs, stamp, { temp, backup, size: BigInt(Buffer.byteLength(content)) });
}

// A second name for the file about to be replaced, so that it can be put back; undefined where
// the filesystem has no hard links.
async function keepOld(fs: FsPort, target: string, backup: string): Promise<string | undefined> {
  try {
    await fs.link(target, backup);
    return backup;
  } catch {
    return undefined;
  }
}

// The old inode, through the descriptor it was read from, once no process holds it open for
// writing any more (a writer that opened it just before the rename): a write that landed between
// the last check and the rename shows here. Then the old file is put back (the operation is
// undone) with whatever was appended meanwhile to the patched file under its name.
async function afterRename(fs: FsPort, stamp: Stamp, written: { temp: string; backup: string | undefined; size: bigint }): Promise<void> {
  const { temp, backup } = written;
  const held = await heldForWriting(stamp.handle);
  const changed = await stamp.handle.stat({ bigint: true }).then(
    (now) => difference(stamp, now, false),
    () => undefined,
  );
  const what = changed ?? (held ? 'it is still held open for writing, and what it writes next would go to the replaced file' : undefined);
  if (what === undefined) {
    if (backup) await fs.unlink(backup).catch(() => undefined);
    return;
  }
  const said = `another process wrote ${stamp.path} while apply_patch replaced it (${what})`;
  if (!backup) {
    throw new FileChangedError(
      `${said}; the patched file is in place, but what that process wrote went to the replaced file, which this filesystem cannot keep. Re-read the file and check it.`,
      true,
    );
  }
  let moved: number;
  try {
    moved = await putBack(fs, stamp.path, backup, written.size);
  } catch {
    const conflict = path.join(path.dirname(stamp.path), `${path.basename(stamp.path)}.zodex-conflict-${path.basename(temp).slice(-16, -4)}`);
    await fs.rename(backup, conflict).catch(() => undefined);
    throw new FileChangedError(`${said}; the patched file is in place and the old one, with that process's writes, is kept as ${conflict}.`, true);
  }
  const also = moved > 0 ? ` (with the ${moved} bytes written meanwhile to the patched file appended)` : '';
  throw new FileChangedError(`${said}; the old file, with what that process wrote${also}, was put back: this operation was not applied.`, false);
}

// The old file back under its name; what other processes appended to the patched file in the
// meantime (they opened it by name after the rename) is appended to the old one. Returns how many
// bytes that was.
async function putBack(fs: FsPort, target: string, backup: string, size: bigint): Promise<number> {
  const patched = await fs.openRead(target); // before the name leaves it
  try {
    await fs.rename(backup, target);
    await heldForWriting(patched); // writers that opened the patched file finish
    const tail = (await patched.readFile()).subarray(Number(size));
    if (tail.length > 0) await fs.appendFile(target, tail);
    return tail.length;
  } finally {
    await patched.close().catch(() => undefined);
  }
}
