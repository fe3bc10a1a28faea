// Spill files: where a session's stream goes once it outgrows the inline limit.
// Layout: PARENT (default $TMPDIR/zodex-UID, 0700, ours, never a symlink) / spill-XXXXXX (one
// folder per server, made by mkdtemp: 0700) / out-<time>-<random>.txt (0600, O_EXCL|O_NOFOLLOW).
// Each file keeps the first capBytes of the stream; past the cap, saveTail() replaces a second
// file out-<time>-<random>.tail.txt (0600, written to .tail.tmp and renamed, so it always holds
// one contiguous tail). Cleanup removes our stale files hourly.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirPrivate, privateFolderProblem } from '../fsutil.js';
import type { SpillSink } from './output.js';

export const SPILL_FOLDER_PATTERN = /^spill-[A-Za-z0-9]{6}$/;
export const SPILL_FILE_PATTERN = /^out-[0-9a-z]+-[0-9a-f]{8}(\.tail)?\.(txt|tmp)$/;
const HOUR_MS = 3_600_000;

export interface SpillOptions {
  parentDir: string;
  capBytes: number;
  maxAgeMs: number;
}

export function defaultSpillParent(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `zodex-${uid}`);
}

// Makes PARENT if missing, then checks it is a real directory of ours that nobody else can
// write into. Throws an Error whose message says what is wrong.
function ensurePrivateParent(parentDir: string): void {
  mkdirPrivate(parentDir);
  const problem = privateFolderProblem(parentDir, false, 'its spill files');
  if (problem) throw new Error(`${parentDir} ${problem}`);
}

export class SpillStore {
  private folder: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: SpillOptions) {}

  get capBytes(): number {
    return this.options.capBytes;
  }

  // The server's own folder, made on first use; retried on the next spill if it failed.
  private ensureFolder(): string {
    if (this.folder) return this.folder;
    ensurePrivateParent(this.options.parentDir);
    this.folder = fs.mkdtempSync(path.join(this.options.parentDir, 'spill-'));
    return this.folder;
  }

  create(): SpillSink {
    try {
      return this.open();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !this.folder) return new FailedSpill(`spilling failed: ${describe(error)}`);
      this.folder = undefined; // our folder was removed (e.g. by another server's cleanup): make a new one
      try {
        return this.open();
      } catch (retryError) {
        return new FailedSpill(`spilling failed: ${describe(retryError)}`);
      }
    }
  }

  private open(): SpillSink {
    const folder = this.ensureFolder();
    const name = `out-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}.txt`;
    const file = path.join(folder, name);
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    return new SpillFile(file, fd, this.options.capBytes);
  }

  // Removes spill files older than maxAgeMs from every server folder under PARENT (ours and
  // those of servers gone before), then folders left empty and stale. Touches nothing else.
  async cleanup(now = Date.now()): Promise<number> {
    const { parentDir, maxAgeMs } = this.options;
    let removed = 0;
    let folders: fs.Dirent[];
    try {
      const parent = await fs.promises.lstat(parentDir);
      if (!parent.isDirectory()) return 0;
      folders = await fs.promises.readdir(parentDir, { withFileTypes: true });
    } catch {
      return 0;
    }
    for (const entry of folders) {
      if (!entry.isDirectory() || !SPILL_FOLDER_PATTERN.test(entry.name)) continue;
      const folder = path.join(parentDir, entry.name);
      let files: fs.Dirent[];
      let folderStale: boolean;
      try {
        folderStale = now - (await fs.promises.lstat(folder)).mtimeMs > maxAgeMs; // before removals touch it
        files = await fs.promises.readdir(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      let kept = 0;
      for (const file of files) {
        if (!file.isFile() || !SPILL_FILE_PATTERN.test(file.name)) {
          kept++;
          continue;
        }
        const filePath = path.join(folder, file.name);
        try {
          const stat = await fs.promises.lstat(filePath);
          if (now - stat.mtimeMs > maxAgeMs) {
            await fs.promises.unlink(filePath);
            removed++;
          } else kept++;
        } catch {
          kept++;
        }
      }
      if (kept === 0 && folderStale && folder !== this.folder) {
        // A live server whose folder this was makes a new one at its next spill.
        await fs.promises.rmdir(folder).catch(() => {});
      }
    }
    return removed;
  }

  // The spill files on disk under PARENT (every server folder: this one's and those left by
  // servers gone before, until the age cleanup removes them), for an operator's metrics.
  async diskUsage(): Promise<{ bytes: number; files: number }> {
    const usage = { bytes: 0, files: 0 };
    let folders: fs.Dirent[];
    try {
      folders = await fs.promises.readdir(this.options.parentDir, { withFileTypes: true });
    } catch {
      return usage;
    }
    for (const entry of folders) {
      if (!entry.isDirectory() || !SPILL_FOLDER_PATTERN.test(entry.name)) continue;
      const folder = path.join(this.options.parentDir, entry.name);
      const files = await fs.promises.readdir(folder, { withFileTypes: true }).catch(() => [] as fs.Dirent[]);
      for (const file of files) {
        if (!file.isFile() || !SPILL_FILE_PATTERN.test(file.name)) continue;
        const stat = await fs.promises.lstat(path.join(folder, file.name)).catch(() => undefined);
        if (!stat) continue;
        usage.files++;
        usage.bytes += stat.size;
      }
    }
    return usage;
  }

  // Cleanup now and then every hour, without keeping the process alive.
  startCleanup(onError: (message: string) => void): void {
    const run = () => this.cleanup().catch((error) => onError(`spill cleanup failed: ${describe(error)}`));
    void run();
    this.timer = setInterval(run, HOUR_MS);
    this.timer.unref();
  }

  // Ends the cleanup; our folder goes too if nothing is left in it (a folder per server that ever
  // spilled would otherwise pile up for a day under PARENT, each walked by every start's cleanup).
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (!this.folder) return;
    try {
      fs.rmdirSync(this.folder);
    } catch {
      // not empty (its files stay, for maxAgeMs) or already gone
    }
  }
}

class SpillFile implements SpillSink {
  private written = 0;
  private offered = 0;
  error: string | undefined;
  tailPath: string | undefined;
  tailError: string | undefined;

  constructor(
    readonly path: string,
    private fd: number | undefined,
    readonly capBytes: number,
  ) {}

  get truncated(): boolean {
    return this.offered > this.capBytes;
  }

  get kept(): number {
    return this.written;
  }

  // Up to `length` bytes of the file from `offset` (fewer at its end or on a read error).
  read(offset: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(Math.max(0, Math.min(length, this.written - offset)));
    let done = 0;
    try {
      const fd = fs.openSync(this.path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
      try {
        while (done < out.length) {
          const n = fs.readSync(fd, out, done, out.length - done, offset + done);
          if (n === 0) break;
          done += n;
        }
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // what was read so far is all there is
    }
    return out.subarray(0, done);
  }

  // Replaces the tail file with `bytes` in one rename; failures land in tailError.
  saveTail(bytes: Uint8Array): void {
    const target = this.path.replace(/\.txt$/, '.tail.txt');
    const temp = this.path.replace(/\.txt$/, '.tail.tmp');
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    try {
      fs.rmSync(temp, { force: true });
      const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        let done = 0;
        while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, target);
      this.tailPath = target;
      this.tailError = undefined;
    } catch (error) {
      this.tailError = `writing the tail file failed: ${describe(error)}`;
      try {
        fs.rmSync(temp, { force: true });
      } catch {
        // cleanup removes it later
      }
    }
  }

  write(bytes: Uint8Array): void {
    this.offered += bytes.length;
    if (this.fd === undefined) return;
    const room = this.capBytes - this.written;
    const slice = bytes.length > room ? bytes.subarray(0, room) : bytes;
    try {
      let done = 0;
      while (done < slice.length) done += fs.writeSync(this.fd, slice, done, slice.length - done);
      this.written += done;
    } catch (error) {
      this.error = `spilling failed after ${this.written} bytes: ${describe(error)}`;
      this.close();
      return;
    }
    if (this.written >= this.capBytes) this.close();
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fs.closeSync(fd);
    } catch {
      // nothing useful to do
    }
  }
}

class FailedSpill implements SpillSink {
  readonly path = undefined;
  readonly truncated = false;
  readonly kept = 0;
  readonly capBytes = undefined;
  readonly tailPath = undefined;
  readonly tailError = undefined;
  constructor(readonly error: string) {}
  write(): void {}
  read(): Buffer {
    return Buffer.alloc(0);
  }
  saveTail(): void {}
  close(): void {}
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
