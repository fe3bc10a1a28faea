// The patch engine's ports: the file system it reads and writes through (nodeFs in apply.ts; tests
// wrap it to inject failures), and the guard through which something outside the engine bounds it
// (features/bounds: the write mode's credential stores, the sandbox's writable roots). For a call
// in one workdir the guard says where a path really is, refuses an operation before it is planned
// and wraps the fs port so that every read and write is checked on what it reaches; a refusal is a
// BoundsDenied, which fails its operation only.

import type { BigIntStats } from 'node:fs';
import type { PatchFailureCode } from '../errors.js';
import type { ReadHandle } from './guard.js';

// The subset of node:fs/promises the engine uses.
export interface FsPort {
  realpath(path: string): Promise<string>;
  stat(path: string): Promise<{ isFile(): boolean; isDirectory(): boolean; mode: number }>;
  openRead(path: string): Promise<ReadHandle>;
  statExact(path: string): Promise<BigIntStats>; // follows symlinks, nanosecond times
  mkdirp(path: string): Promise<unknown>; // the folder and its missing parents
  open(path: string, flags: 'wx', mode: number): Promise<TempHandle>;
  link(existing: string, newPath: string): Promise<void>;
  appendFile(path: string, data: Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export interface TempHandle {
  writeFile(data: string): Promise<void>;
  chmod(mode: number): Promise<void>;
  close(): Promise<void>;
}

export type BoundsCode = Extract<PatchFailureCode, 'SANDBOX_WRITE_DENIED' | 'CREDENTIAL_STORE_DENIED'>;

export class BoundsDenied extends Error {
  constructor(
    readonly code: BoundsCode,
    message: string,
  ) {
    super(message);
  }
}

export interface PatchGuard {
  // The path a patch path means (the private /tmp).
  locate(absPath: string): string;
  // Why an operation on this (located) path is refused, or undefined.
  check(absPath: string, shown: string): BoundsDenied | undefined;
  // `fs` with every write and read checked on the object it reaches.
  wrap(fs: FsPort): FsPort;
}

// The guard of one apply_patch call in `workdir`; undefined when nothing bounds it.
export type PatchBoundary = (workdir: string) => PatchGuard | undefined;
