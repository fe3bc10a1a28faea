import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs } from '../../src/patch/apply.js';
import type { TempHandle } from '../../src/patch/port.js';
import { applyPatch, type FsPort } from '../../src/patch/index.js';
import { patch, scratchFolder } from './support.js';

const scratch = scratchFolder('zodex-apply-');
const { file, read, listing } = scratch;
const modeOf = (name: string) => fs.statSync(file(name)).mode & 0o7777;

// A port that records the temp files it opens and can fail one kind of call.
function port(fail: Partial<Record<'write' | 'rename' | 'unlink' | 'open', (target: string) => boolean>> = {}) {
  const opened: { path: string; flags: string; mode: number }[] = [];
  const boom = (call: string, target: string) => Object.assign(new Error(`ENOSPC: injected ${call} failure, ${target}`), { code: 'ENOSPC' });
  const fsPort: FsPort = {
    ...nodeFs,
    async open(target, flags, mode): Promise<TempHandle> {
      if (fail.open?.(target)) throw boom('open', target);
      opened.push({ path: target, flags, mode });
      const handle = await nodeFs.open(target, flags, mode);
      return {
        writeFile: async (data) => {
          if (fail.write?.(target)) {
            await handle.writeFile(data.slice(0, 3)); // half-written
            throw boom('write', target);
          }
          await handle.writeFile(data);
        },
        chmod: (m) => handle.chmod(m),
        close: () => handle.close(),
      };
    },
    async rename(from, to) {
      if (fail.rename?.(to)) throw boom('rename', to);
      await nodeFs.rename(from, to);
    },
    async unlink(target) {
      if (fail.unlink?.(target)) throw boom('unlink', target);
      await nodeFs.unlink(target);
    },
  };
  return { fsPort, opened };
}

describe('atomic writes', () => {
  it('writes through an O_EXCL temp file named .<name>.zodex-<pid>-<random>.tmp in the same folder', async () => {
    fs.writeFileSync(file('a.txt'), 'old\n');
    const { fsPort, opened } = port();
    await applyPatch(patch('*** Update File: a.txt', '@@', '-old', '+new'), scratch.dir, fsPort);
    expect(opened).toHaveLength(1);
    expect(path.dirname(opened[0]!.path)).toBe(scratch.dir);
    expect(path.basename(opened[0]!.path)).toMatch(new RegExp(`^\\.a\\.txt\\.zodex-${process.pid}-[0-9a-f]{12}\\.tmp$`));
    expect(opened[0]!.flags).toBe('wx');
    expect(read('a.txt')).toBe('new\n');
    expect(listing()).toEqual(['a.txt']);
  });

  it('on a failed write removes the temp file, keeps the original and still applies the other operations', async () => {
    fs.writeFileSync(file('a.txt'), 'old a\n');
    fs.writeFileSync(file('b.txt'), 'old b\n');
    const { fsPort } = port({ write: (target) => target.includes('.a.txt.') });
    const report = await applyPatch(
      patch('*** Update File: a.txt', '@@', '-old a', '+new a', '*** Update File: b.txt', '@@', '-old b', '+new b'),
      scratch.dir,
      fsPort,
    );
    expect(report.changed).toEqual([{ kind: 'M', path: 'b.txt' }]);
    expect(report.failed).toEqual([
      expect.objectContaining({ op: 'update', path: 'a.txt', code: 'WRITE_FAILED', reason: expect.stringContaining('injected write failure') }),
    ]);
    expect(read('a.txt')).toBe('old a\n');
    expect(read('b.txt')).toBe('new b\n');
    expect(listing()).toEqual(['a.txt', 'b.txt']);
  });

  it('on a failed rename removes the temp file and keeps the original', async () => {
    fs.writeFileSync(file('a.txt'), 'old\n');
    const { fsPort } = port({ rename: () => true });
    const report = await applyPatch(patch('*** Update File: a.txt', '@@', '-old', '+new'), scratch.dir, fsPort);
    expect(report.failed[0]).toMatchObject({ code: 'WRITE_FAILED' });
    expect(read('a.txt')).toBe('old\n');
    expect(listing()).toEqual(['a.txt']);
  });

  it('does not create a file when a new file cannot be written', async () => {
    const { fsPort } = port({ write: () => true });
    const report = await applyPatch(patch('*** Add File: deep/new.txt', '+x'), scratch.dir, fsPort);
    expect(report).toMatchObject({ changed: [], failed: [{ op: 'add', code: 'WRITE_FAILED' }] });
    expect(fs.readdirSync(file('deep'))).toEqual([]);
  });
});

describe('modes', () => {
  it('keeps the mode of an updated file, even bits the umask would clear', async () => {
    fs.writeFileSync(file('run.sh'), 'echo old\n');
    fs.chmodSync(file('run.sh'), 0o775);
    await applyPatch(patch('*** Update File: run.sh', '@@', '-echo old', '+echo new'), scratch.dir);
    expect(modeOf('run.sh')).toBe(0o775);
  });

  it('gives a moved file the mode of its source, and a new file 0o666 minus the umask', async () => {
    fs.writeFileSync(file('a.sh'), 'x\n');
    fs.chmodSync(file('a.sh'), 0o700);
    await applyPatch(patch('*** Update File: a.sh', '*** Move to: b.sh', '@@', '-x', '+y', '*** Add File: c.txt', '+c'), scratch.dir);
    expect(modeOf('b.sh')).toBe(0o700);
    const umask = process.umask();
    expect(modeOf('c.txt')).toBe(0o666 & ~umask);
  });
});

describe('operations', () => {
  it('moves: writes the destination then removes the source', async () => {
    fs.writeFileSync(file('a.txt'), 'old\n');
    const report = await applyPatch(patch('*** Update File: a.txt', '*** Move to: x/y/b.txt', '@@', '-old', '+new'), scratch.dir);
    expect(report).toEqual({ changed: [{ kind: 'M', path: 'x/y/b.txt', movedFrom: 'a.txt' }], failed: [] });
    expect(listing()).toEqual(['x']);
    expect(read('x/y/b.txt')).toBe('new\n');
  });

  it('reports a move whose source cannot be removed as both changed and failed', async () => {
    fs.writeFileSync(file('a.txt'), 'old\n');
    const { fsPort } = port({ unlink: (target) => target === file('a.txt') });
    const report = await applyPatch(patch('*** Update File: a.txt', '*** Move to: b.txt', '@@', '-old', '+new'), scratch.dir, fsPort);
    expect(report.changed).toEqual([{ kind: 'M', path: 'b.txt', movedFrom: 'a.txt' }]);
    expect(report.failed).toEqual([
      expect.objectContaining({
        op: 'move',
        path: 'a.txt',
        code: 'DELETE_FAILED',
        reason: expect.stringContaining('the new file was written, but could not remove'),
      }),
    ]);
    expect(read('b.txt')).toBe('new\n');
    expect(read('a.txt')).toBe('old\n');
  });

  it('edits the target of a symlink and keeps the link', async () => {
    fs.mkdirSync(file('real'));
    fs.writeFileSync(file('real/t.txt'), 'old\n');
    fs.symlinkSync('real/t.txt', file('link.txt'));
    await applyPatch(patch('*** Update File: link.txt', '@@', '-old', '+new'), scratch.dir);
    expect(fs.lstatSync(file('link.txt')).isSymbolicLink()).toBe(true);
    expect(read('real/t.txt')).toBe('new\n');
    expect(fs.readdirSync(file('real'))).toEqual(['t.txt']);
  });

  it('deletes a symlink itself, not its target', async () => {
    fs.writeFileSync(file('t.txt'), 'keep\n');
    fs.symlinkSync('t.txt', file('link.txt'));
    await applyPatch(patch('*** Delete File: link.txt'), scratch.dir);
    expect(listing()).toEqual(['t.txt']);
  });

  it('throws PatchParseError for malformed syntax before touching the disk', async () => {
    fs.writeFileSync(file('a.txt'), 'old\n');
    const { fsPort, opened } = port();
    await expect(applyPatch(patch('*** Add File: b.txt', '+b', '*** Update File: a.txt', '@@', '-old', 'bad line'), scratch.dir, fsPort)).rejects.toMatchObject(
      { code: 'PATCH_PARSE', line: 7 },
    );
    expect(opened).toEqual([]);
    expect(listing()).toEqual(['a.txt']);
  });
});
