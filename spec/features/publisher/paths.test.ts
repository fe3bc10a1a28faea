import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPublisherSocket, ensureSocketFolder } from '../../../src/features/publisher/paths.js';
import { tempDir } from './helpers.js';

describe('defaultPublisherSocket', () => {
  it('lives in $XDG_RUNTIME_DIR/zodex, else /tmp/zodex-<uid>/publisher', () => {
    expect(defaultPublisherSocket({ XDG_RUNTIME_DIR: '/run/user/1000' })).toBe('/run/user/1000/zodex/publisher.sock');
    expect(defaultPublisherSocket({})).toBe(path.join(os.tmpdir(), `zodex-${process.getuid?.()}`, 'publisher', 'publisher.sock'));
    expect(defaultPublisherSocket({ XDG_RUNTIME_DIR: 'relative' })).toBe(defaultPublisherSocket({}));
  });
});

describe('ensureSocketFolder', () => {
  it('creates a missing folder 0700', () => {
    const dir = tempDir();
    const folder = path.join(dir, 'zodex');
    ensureSocketFolder(path.join(folder, 'publisher.sock'), { XDG_RUNTIME_DIR: dir });
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    fs.rmSync(dir, { recursive: true });
  });

  it('refuses a folder group or others can enter, without changing it', () => {
    const dir = tempDir();
    for (const mode of [0o750, 0o705, 0o770, 0o755, 0o711]) {
      const folder = path.join(dir, `m${mode.toString(8)}`);
      fs.mkdirSync(folder);
      fs.chmodSync(folder, mode);
      expect(() => ensureSocketFolder(path.join(folder, 'p.sock'))).toThrow(
        `has mode ${mode.toString(8)}, so other users can reach the publisher socket; run \`chmod 700 ${folder}\``,
      );
      expect(fs.statSync(folder).mode & 0o777).toBe(mode);
    }
    fs.rmSync(dir, { recursive: true });
  });

  it('refuses a symlinked folder, a file in its place, a relative path', () => {
    const dir = tempDir();
    const real = path.join(dir, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    fs.symlinkSync(real, path.join(dir, 'link'));
    expect(() => ensureSocketFolder(path.join(dir, 'link', 'p.sock'))).toThrow(/is a symbolic link; refusing to follow it/);
    fs.writeFileSync(path.join(dir, 'file'), '');
    expect(() => ensureSocketFolder(path.join(dir, 'file', 'p.sock'))).toThrow(/is not a directory/);
    expect(() => ensureSocketFolder('rel/p.sock')).toThrow(/must be an absolute path/);
    fs.rmSync(dir, { recursive: true });
  });

  it('the default /tmp layout also checks the zodex-<uid> level above', () => {
    const tmp = tempDir();
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const socket = defaultPublisherSocket({});
      expect(socket.startsWith(tmp)).toBe(true);
      ensureSocketFolder(socket, {});
      const parent = path.dirname(path.dirname(socket));
      expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
      fs.chmodSync(parent, 0o777);
      expect(() => ensureSocketFolder(socket, {})).toThrow(/so other users can replace the publisher socket; run `chmod go-w/);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      fs.rmSync(tmp, { recursive: true });
    }
  });
});
