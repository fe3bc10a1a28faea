// The only module that writes: it carries out one operation's Steps through a small fs port.
// Flow: write = mkdir -p the folder -> create `.<name>.zodex-<random>.tmp` beside the target
// (O_EXCL, old mode kept) -> write -> rename over the target; a failed write removes its temp file.
// Not fsync'd: atomic for readers and for a crash of this process, not for a power loss.

import { randomBytes } from 'node:crypto';
import fsPromises from 'node:fs/promises';
import { mkdirp } from '../fsutil.js';
import path from 'node:path';
import type { FailureCode, FileProbe, FileReader, Step } from './plan.js';

// The subset of node:fs/promises used here; tests pass a wrapper that injects failures.
export interface FsPort {
  realpath(path: string): Promise<string>;
  stat(path: string): Promise<{ isFile(): boolean; isDirectory(): boolean; mode: number }>;
  readFile(path: string): Promise<Uint8Array>;
  mkdirp(path: string): Promise<unknown>; // the folder and its missing parents
  open(path: string, flags: 'wx', mode: number): Promise<TempHandle>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

export interface TempHandle {
  writeFile(data: string): Promise<void>;
  chmod(mode: number): Promise<void>;
  close(): Promise<void>;
}

export const nodeFs: FsPort = { ...fsPromises, mkdirp: (folder: string) => mkdirp(folder) };

const NEW_FILE_MODE = 0o666; // before the umask, as any editor creates files
const MAX_NAME_IN_TEMP = 200; // keeps `.<name>.zodex-<random>.tmp` under NAME_MAX (255)

export function fsReader(fs: FsPort): FileReader {
  return {
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
    read: (realPath: string) => fs.readFile(realPath),
  };
}

export interface StepsOutcome {
  /** How many steps took effect (the first one is the operation's visible change). */
  completed: number;
  error?: { code: FailureCode; reason: string };
}

export async function runSteps(steps: readonly Step[], fs: FsPort): Promise<StepsOutcome> {
  for (const [completed, step] of steps.entries()) {
    try {
      if (step.kind === 'write') await writeAtomically(fs, step.target, step.content, step.mode);
      else await fs.unlink(step.target);
    } catch (error) {
      const cause = error instanceof Error ? error.message : String(error);
      const done = completed > 0 ? 'the new file was written, but ' : '';
      return step.kind === 'write'
        ? { completed, error: { code: 'WRITE_FAILED', reason: `${done}could not write ${step.target}: ${cause}` } }
        : { completed, error: { code: 'DELETE_FAILED', reason: `${done}could not remove ${step.target}: ${cause}` } };
    }
  }
  return { completed: steps.length };
}

async function writeAtomically(fs: FsPort, target: string, content: string, mode: number | undefined): Promise<void> {
  const folder = path.dirname(target);
  await fs.mkdirp(folder);
  const name = path.basename(target).slice(0, MAX_NAME_IN_TEMP);
  const temp = path.join(folder, `.${name}.zodex-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(temp, 'wx', mode ?? NEW_FILE_MODE);
  try {
    try {
      await handle.writeFile(content);
      if (mode !== undefined) await handle.chmod(mode); // the umask may have cleared bits of the old mode
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}
