import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SpillStore } from '../../src/exec/output/spill.js';

const roots: string[] = [];
function tempRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-spill-test-'));
  roots.push(root);
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

const DAY = 24 * 3_600_000;

describe('SpillStore', () => {
  it('makes a private folder and private files, and caps each file', () => {
    const parent = path.join(tempRoot(), 'zodex');
    const store = new SpillStore({ parentDir: parent, capBytes: 10, maxAgeMs: DAY });
    const sink = store.create();
    expect(sink.error).toBeUndefined();
    sink.write(Buffer.from('0123456'));
    sink.write(Buffer.from('789abcdef'));
    sink.close();
    expect(fs.statSync(parent).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(sink.path!)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(sink.path!).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(sink.path!, 'utf8')).toBe('0123456789');
    expect(sink.truncated).toBe(true);
  });

  it('removes its own folder when it stops with nothing left in it, and keeps one that holds files', () => {
    const parent = path.join(tempRoot(), 'zodex');
    const kept = new SpillStore({ parentDir: parent, capBytes: 10, maxAgeMs: DAY });
    const sink = kept.create();
    sink.close();
    kept.stop();
    expect(fs.existsSync(sink.path!)).toBe(true);
    const emptied = new SpillStore({ parentDir: parent, capBytes: 10, maxAgeMs: DAY });
    const gone = emptied.create();
    gone.close();
    fs.rmSync(gone.path!);
    emptied.stop();
    expect(fs.existsSync(path.dirname(gone.path!))).toBe(false);
    expect(fs.readdirSync(parent)).toEqual([path.basename(path.dirname(sink.path!))]);
  });

  it('reads back what it kept and replaces the tail file whole, private, beside the spill file', async () => {
    const store = new SpillStore({ parentDir: path.join(tempRoot(), 'zodex'), capBytes: 10, maxAgeMs: DAY });
    const sink = store.create();
    sink.write(Buffer.from('0123456789abc'));
    expect(sink.read(3, 4).toString()).toBe('3456');
    expect(sink.read(8, 100).toString()).toBe('89');
    sink.saveTail(Buffer.from('first tail'));
    sink.saveTail(Buffer.from('second'));
    const tail = sink.tailPath!;
    expect(path.dirname(tail)).toBe(path.dirname(sink.path!));
    expect(path.basename(tail)).toMatch(/^out-[0-9a-z]+-[0-9a-f]{8}\.tail\.txt$/);
    expect(fs.statSync(tail).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(tail, 'utf8')).toBe('second');
    expect(fs.readdirSync(path.dirname(tail)).sort()).toEqual([path.basename(sink.path!), path.basename(tail)].sort()); // no temp left
    // stale tail files (and a temp left by a crash) are cleaned up like spill files
    const old = new Date(Date.now() - 2 * DAY);
    const temp = tail.replace(/\.txt$/, '.tmp');
    fs.writeFileSync(temp, 'x', { mode: 0o600 });
    for (const file of [tail, temp, sink.path!]) fs.utimesSync(file, old, old);
    expect(await store.cleanup()).toBe(3);
  });

  it("refuses a parent that is a symlink, someone else's, or open to others", () => {
    const root = tempRoot();
    const real = path.join(root, 'real');
    fs.mkdirSync(real, { mode: 0o700 });
    fs.symlinkSync(real, path.join(root, 'link'));
    const viaLink = new SpillStore({ parentDir: path.join(root, 'link'), capBytes: 10, maxAgeMs: DAY }).create();
    expect(viaLink.path).toBeUndefined();
    expect(viaLink.error).toMatch(/symbolic link/);
    const open = path.join(root, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    expect(new SpillStore({ parentDir: open, capBytes: 10, maxAgeMs: DAY }).create().error).toMatch(
      /so other users can replace its spill files; run `chmod go-w/,
    );
  });

  it('reports a folder it cannot create instead of throwing, and writes nothing', () => {
    const root = tempRoot();
    fs.writeFileSync(path.join(root, 'file'), 'x');
    const sink = new SpillStore({ parentDir: path.join(root, 'file', 'sub'), capBytes: 10, maxAgeMs: DAY }).create();
    expect(sink.path).toBeUndefined();
    expect(sink.error).toMatch(/^spilling failed: .*ENOTDIR/);
    expect(() => sink.write(Buffer.from('data'))).not.toThrow();
  });

  it('keeps going when a write fails (disk full) and says why', () => {
    const parent = path.join(tempRoot(), 'zodex');
    const sink = new SpillStore({ parentDir: parent, capBytes: 1 << 20, maxAgeMs: DAY }).create();
    sink.write(Buffer.from('first'));
    // simulate the device failing under the file: close its descriptor behind its back
    const fd = (sink as unknown as { fd: number }).fd;
    fs.closeSync(fd);
    expect(() => sink.write(Buffer.from('second'))).not.toThrow();
    expect(sink.error).toMatch(/spilling failed after 5 bytes: .*EBADF/);
    expect(fs.readFileSync(sink.path!, 'utf8')).toBe('first');
  });

  it('cleans up only stale files of its own naming, in its own folders', async () => {
    const parent = path.join(tempRoot(), 'zodex');
    fs.mkdirSync(parent, { mode: 0o700 });
    const old = path.join(parent, 'spill-AbC123');
    const other = path.join(parent, 'not-ours');
    fs.mkdirSync(old);
    fs.mkdirSync(other);
    const stale = path.join(old, 'out-abc-0123abcd.txt');
    const fresh = path.join(old, 'out-abd-0123abce.txt');
    const foreign = path.join(old, 'notes.txt');
    const elsewhere = path.join(other, 'out-abc-0123abcd.txt');
    for (const file of [stale, fresh, foreign, elsewhere]) fs.writeFileSync(file, 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    for (const file of [stale, foreign, elsewhere]) fs.utimesSync(file, twoDaysAgo, twoDaysAgo);
    const store = new SpillStore({ parentDir: parent, capBytes: 10, maxAgeMs: DAY });
    expect(await store.cleanup()).toBe(1);
    expect(fs.existsSync(stale)).toBe(false);
    for (const file of [fresh, foreign, elsewhere]) expect(fs.existsSync(file), file).toBe(true);
    // an emptied stale folder goes too
    const empty = path.join(parent, 'spill-Zz9Yy8');
    fs.mkdirSync(empty);
    const emptyStale = path.join(empty, 'out-a-00000000.txt');
    fs.writeFileSync(emptyStale, 'x');
    fs.utimesSync(emptyStale, twoDaysAgo, twoDaysAgo);
    fs.utimesSync(empty, twoDaysAgo, twoDaysAgo);
    await store.cleanup();
    expect(fs.existsSync(empty)).toBe(false);
  });
});

// Issue 23: nothing bounded the folder; 40 commands of 2 MB left 80 MB for a day.
describe('the folder cap (--spill-folder-max-bytes)', () => {
  const folderBytes = (dir: string) => fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0);

  it('removes the files of ended commands, oldest first, to make room, and says which', () => {
    const store = new SpillStore({ parentDir: path.join(tempRoot(), 'zodex'), capBytes: 60, maxAgeMs: DAY, folderMaxBytes: 150 });
    const [a, b, c] = [store.create(), store.create(), store.create()];
    const aPath = a.path!;
    a.write(Buffer.alloc(60, 'a'));
    a.markEnded();
    b.write(Buffer.alloc(60, 'b'));
    b.markEnded();
    c.write(Buffer.alloc(60, 'c')); // 180 > 150: a goes, b stays
    expect(fs.existsSync(aPath)).toBe(false);
    expect(a.path).toBeUndefined();
    expect(a.kept).toBe(0);
    expect(a.error).toMatch(
      /^\S+out-\S+\.txt was removed to keep the spill folder under its 150-byte cap \(--spill-folder-max-bytes\), after the command ended/,
    );
    expect(c.takeRemovedOthers()).toEqual([aPath]);
    expect(c.takeRemovedOthers()).toEqual([]); // reported once
    expect(fs.readFileSync(b.path!, 'utf8')).toBe('b'.repeat(60));
    expect(fs.readFileSync(c.path!, 'utf8')).toBe('c'.repeat(60));
    expect(c.truncated).toBe(false);
    expect(store.usedBytes).toBe(120);
    expect(folderBytes(path.dirname(c.path!))).toBe(120);
  });

  it("never removes a running command's file: the writing file stops where the room ends, and says why", () => {
    const store = new SpillStore({ parentDir: path.join(tempRoot(), 'zodex'), capBytes: 60, maxAgeMs: DAY, folderMaxBytes: 100 });
    const [running, writer] = [store.create(), store.create()];
    running.write(Buffer.alloc(60, 'r'));
    writer.write(Buffer.alloc(30, 'w'));
    writer.write(Buffer.alloc(30, 'x'));
    expect(fs.readFileSync(running.path!, 'utf8')).toBe('r'.repeat(60));
    expect(writer.kept).toBe(40);
    expect(fs.readFileSync(writer.path!, 'utf8')).toBe('w'.repeat(30) + 'x'.repeat(10));
    expect(writer.truncated).toBe(true);
    expect(writer.error).toMatch(/the spill folder is full \(--spill-folder-max-bytes\): output_file keeps the first 40 bytes/);
    writer.write(Buffer.alloc(10, 'y')); // nothing more, even once room comes back
    expect(writer.kept).toBe(40);
    expect(store.usedBytes).toBe(100);
  });

  it('counts tail files and keeps what is on disk equal to what it counts, under the cap', () => {
    const parent = path.join(tempRoot(), 'zodex');
    const store = new SpillStore({ parentDir: parent, capBytes: 40, maxAgeMs: DAY, folderMaxBytes: 200 });
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const sinks = [store.create()];
    const folder = path.dirname(sinks[0]!.path!);
    for (let step = 0; step < 400; step++) {
      const roll = next(10);
      const sink = sinks[next(sinks.length)]!;
      if (roll < 5) sink.write(Buffer.alloc(1 + next(30), 'z'));
      else if (roll < 7) sink.saveTail(Buffer.alloc(next(50), 't'));
      else if (roll < 8) sink.markEnded();
      else sinks.push(store.create());
      expect(folderBytes(folder), `step ${step}`).toBe(store.usedBytes);
      expect(store.usedBytes).toBeLessThanOrEqual(200);
    }
  });
});
