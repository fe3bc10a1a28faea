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
