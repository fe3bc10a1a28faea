import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkdirPrivate, mkdirp, mkdirpSync, privateFolderProblem } from '../src/fsutil.js';

describe('mkdirp', () => {
  it('makes missing parents, accepts an existing folder, refuses a file in the way', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-mkdirp-'));
    try {
      mkdirpSync(path.join(root, 'a/b/c'), 0o700);
      await mkdirp(path.join(root, 'd/e'));
      expect(fs.statSync(path.join(root, 'a/b/c')).isDirectory()).toBe(true);
      expect(fs.statSync(path.join(root, 'a/b')).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(root, 'd/e')).isDirectory()).toBe(true);
      mkdirpSync(path.join(root, 'a/b/c'));
      fs.writeFileSync(path.join(root, 'file'), 'x');
      expect(() => mkdirpSync(path.join(root, 'file'))).toThrow(/ENOTDIR/);
      expect(() => mkdirpSync(path.join(root, 'file/sub'))).toThrow(/ENOTDIR/);
      await expect(mkdirp(path.join(root, 'file/sub'))).rejects.toThrow(/ENOTDIR/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it.runIf(process.platform === 'linux')('fails instead of spinning where mkdir answers ENOENT (/proc)', async () => {
    // Node 20's own recursive mkdir loops forever here.
    expect(() => mkdirpSync('/proc/zodex-nope/x')).toThrow(/ENOENT/);
    await expect(mkdirp('/proc/zodex-nope/x')).rejects.toThrow(/ENOENT/);
  });
});

describe('mkdirPrivate', () => {
  it('makes one level with the mode, says whether it made it, leaves an existing folder as it is', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-private-'));
    try {
      const dir = path.join(root, 'p');
      expect(mkdirPrivate(dir)).toBe(true);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700 & ~process.umask());
      fs.chmodSync(dir, 0o755);
      expect(mkdirPrivate(dir)).toBe(false);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o755); // never chmod-ed: the caller's check refuses it
      expect(() => mkdirPrivate(path.join(root, 'missing/child'))).toThrow(/ENOENT/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('privateFolderProblem', () => {
  it('names the mode as chmod would take it, the sticky bit included', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-fsutil-'));
    try {
      fs.chmodSync(dir, 0o1777);
      expect(privateFolderProblem(dir, false, 'the socket')).toBe(`has mode 1777, so other users can replace the socket; run \`chmod go-w ${dir}\``);
      fs.chmodSync(dir, 0o755);
      expect(privateFolderProblem(dir, true, 'the socket')).toBe(`has mode 755, so other users can reach the socket; run \`chmod 700 ${dir}\``);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
