// Temp files left by a zodexd that died mid-write (SIGKILL, OOM, power) are removed by the next
// apply_patch that writes in the same folder: ours by name, by owner and by a writer that is gone.
// Flow: writeAtomically -> sweepFolder(folder) (at most once a minute per folder) -> readdir ->
// for `.<name>.zodex-<pid>-<hex>.tmp|.old` owned by this uid, modified over 2 s ago, whose pid is
// not a live process (or modified over an hour ago, whatever the pid) -> unlink.

import fs from 'node:fs/promises';
import path from 'node:path';
import { processExists } from '../fsutil.js';

export const TEMP_PATTERN = /^\..+\.zodex-(?:(\d+)-)?[0-9a-f]{12}\.(?:tmp|old)$/;
export const STALE_DEAD_MS = 2_000; // a writer that is gone, and its file quiet for this long
export const STALE_ANY_MS = 60 * 60_000; // no live write takes this long, even a stopped one
const RESWEEP_MS = 60_000;
const REMEMBERED_FOLDERS = 1_000;

const swept = new Map<string, number>();

export function tempName(target: string, kind: 'tmp' | 'old', random: string, maxName: number): string {
  const name = path.basename(target).slice(0, maxName);
  return path.join(path.dirname(target), `.${name}.zodex-${process.pid}-${random}.${kind}`);
}

function alive(pid: number): boolean {
  return pid === process.pid || processExists(pid);
}

// Whether `name` (in `folder`) is a temp file of ours that no live write can still be using.
async function isStale(folder: string, name: string, now: number): Promise<boolean> {
  const match = TEMP_PATTERN.exec(name);
  if (!match) return false;
  const stats = await fs.lstat(path.join(folder, name)).catch(() => undefined);
  if (!stats?.isFile()) return false;
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) return false;
  const age = now - stats.mtimeMs;
  if (age > STALE_ANY_MS) return true;
  const pid = match[1] === undefined ? undefined : Number(match[1]);
  return pid !== undefined && age > STALE_DEAD_MS && !alive(pid);
}

/** Removes the stale temp files of `folder`; returns their names. Never throws. */
export async function sweepFolder(folder: string, force = false): Promise<string[]> {
  const now = Date.now();
  const last = swept.get(folder);
  if (!force && last !== undefined && now - last < RESWEEP_MS) return [];
  if (swept.size >= REMEMBERED_FOLDERS) swept.clear();
  swept.set(folder, now);
  const removed: string[] = [];
  try {
    const dir = await fs.opendir(folder);
    for await (const entry of dir) {
      if (!entry.name.includes('.zodex-') || !(await isStale(folder, entry.name, now))) continue;
      await fs.unlink(path.join(folder, entry.name)).then(
        () => removed.push(entry.name),
        () => undefined,
      );
    }
  } catch {
    // an unreadable folder: the write itself will say what is wrong
  }
  return removed;
}
