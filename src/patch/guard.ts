// Another process writing a file between apply_patch's read and its rename: detected, never lost.
// Flow: the reader opens each file it reads and keeps a Stamp (dev, inode, size, mtime in ns from
// fstat, and the descriptor) -> before each step and right before the rename, the path's stat and
// the descriptor's fstat must still equal it -> after the rename the old inode is fstat'ed once more
// through the descriptor: if it grew or changed, the old file (kept by a hard link taken before the
// rename) is put back and the operation fails with FILE_CHANGED_DURING_PATCH.

import type { BigIntStats } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { openForWriting } from '../native.js';

export const WRITER_WAIT_MS = 200; // how long a writer holding the file open is waited for

export interface ReadHandle {
  readonly fd: number;
  readFile(): Promise<Uint8Array>;
  stat(options: { bigint: true }): Promise<BigIntStats>;
  close(): Promise<void>;
}

export interface Stamp {
  /** The path as read (symlinks resolved), where the rewrite goes. */
  path: string;
  handle: ReadHandle;
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

/** Thrown by a step that found its file changed; `applied` says whether the new content stayed. */
export class FileChangedError extends Error {
  constructor(
    message: string,
    readonly applied: boolean,
  ) {
    super(message);
    this.name = 'FileChangedError';
  }
}

export function stampOf(path: string, handle: ReadHandle, stats: BigIntStats): Stamp {
  return { path, handle, dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
}

/** What differs between the stamp and `now`, in words, or undefined when nothing does. */
export function difference(stamp: Stamp, now: BigIntStats, sameInode = true): string | undefined {
  if (sameInode && (now.ino !== stamp.ino || now.dev !== stamp.dev)) return 'it was replaced by another file';
  if (now.size !== stamp.size) return `its size went from ${stamp.size} to ${now.size} bytes`;
  if (now.mtimeNs !== stamp.mtimeNs) return 'its modification time changed';
  return undefined;
}

export function changedMessage(stamp: Stamp, what: string): string {
  return (
    `another process wrote ${stamp.path} after apply_patch read it (${what}); ` +
    'this operation was not applied, so nothing that process wrote was overwritten.'
  );
}

// The stamp still holds for the path (same inode, size, mtime) and for the descriptor read from.
export async function checkStamp(stamp: Stamp, statPath: (path: string) => Promise<BigIntStats>): Promise<void> {
  let now: BigIntStats;
  try {
    now = await statPath(stamp.path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'an error';
    throw new FileChangedError(changedMessage(stamp, `it can no longer be examined: ${code}`), false);
  }
  const what = difference(stamp, now) ?? difference(stamp, await stamp.handle.stat({ bigint: true }), false);
  if (what !== undefined) throw new FileChangedError(changedMessage(stamp, what), false);
}

// Whether a process still holds the file behind `handle` open for writing after waiting up to
// WRITER_WAIT_MS for it to close (false also where the system cannot tell: see native.ts).
export async function heldForWriting(handle: ReadHandle): Promise<boolean> {
  const deadline = Date.now() + WRITER_WAIT_MS;
  for (let pause = 1; openForWriting(handle.fd) === true; pause = Math.min(pause * 2, 20)) {
    if (Date.now() >= deadline) return true;
    await sleep(pause);
  }
  return false;
}

export function heldMessage(stamp: Stamp): string {
  return (
    `another process holds ${stamp.path} open for writing (a log writer or a running command?); replacing the file ` +
    'would send what it writes next to the replaced copy, where it would be lost, so this operation was not applied.'
  );
}
