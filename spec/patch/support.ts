// What the apply_patch tests share: a scratch folder per test (made before, removed after) and
// small helpers to write patches and read the folder back.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export const patch = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

export interface Scratch {
  readonly dir: string;
  file(name: string): string;
  read(name: string): string;
  listing(): string[];
}

// Registers the hooks; `dir` is the current test's folder.
export function scratchFolder(prefix: string): Scratch {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const file = (name: string) => path.join(dir, name);
  return {
    get dir() {
      return dir;
    },
    file,
    read: (name) => fs.readFileSync(file(name), 'utf8'),
    listing: () => fs.readdirSync(dir).sort(),
  };
}
