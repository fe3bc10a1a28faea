import { describe, expect, it } from 'vitest';
import { joinLines, splitLines } from '../../src/patch/lines.js';
import { parsePatch } from '../../src/patch/parse.js';
import { type FileProbe, type FileReader, planOp, updateLines } from '../../src/patch/plan.js';

// Applies an Update hunk (body lines after "*** Update File: f") to `content`, without a disk.
function update(content: string, ...body: string[]): string | { code: string; reason: string } {
  const [op] = parsePatch(['*** Begin Patch', '*** Update File: f', ...body, '*** End Patch'].join('\n'));
  if (op?.kind !== 'update') throw new Error('not an update');
  const file = splitLines(Buffer.from(content));
  if (!file) throw new Error('not UTF-8');
  const result = updateLines(file, op.chunks);
  return 'code' in result ? result : joinLines(result);
}

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');

describe('locating chunks', () => {
  it('applies in-order chunks with a forward search', () => {
    expect(update(numbered(6), '@@', '-line 2', '+two', '@@', '-line 5', '+five')).toBe('line 1\ntwo\nline 3\nline 4\nfive\nline 6\n');
  });

  it('recovers out-of-order chunks when each matches once and none overlap', () => {
    expect(update(numbered(6), '@@', '-line 5', '+five', '@@', '-line 2', '+two')).toBe('line 1\ntwo\nline 3\nline 4\nfive\nline 6\n');
  });

  it('rejects overlapping out-of-order chunks, naming both', () => {
    const result = update(numbered(6), '@@', ' line 3', '-line 4', '@@', ' line 2', '-line 3');
    expect(result).toMatchObject({ code: 'OVERLAPPING_CHUNKS' });
    expect((result as { reason: string }).reason).toContain(
      'chunk 1 of 2 ("line 3", patch line 3) (lines 3-4) overlaps chunk 2 of 2 ("line 2", patch line 6) (lines 2-3)',
    );
  });

  it('names the chunk, its first context line and every candidate line when ambiguous', () => {
    const result = update('a\nx\nb\nx\nc\nx\n', '@@', '-x', '+y');
    expect(result).toEqual({
      code: 'AMBIGUOUS_CONTEXT',
      reason: 'chunk 1 of 1 ("x", patch line 3) matches 3 places (lines 2, 4, 6); nothing was guessed.',
    });
  });

  it('is ambiguous for a later chunk without header matching twice after the previous chunk', () => {
    const result = update('x\na\nx\nb\nx\n', '@@', '-a', '+A', '@@', '-x', '+y');
    expect(result).toMatchObject({ code: 'AMBIGUOUS_CONTEXT' });
    expect((result as { reason: string }).reason).toContain('chunk 2 of 2 ("x", patch line 6) matches 2 places (lines 3, 5)');
  });

  it('does not count matches before the previous chunk for a later chunk', () => {
    expect(update('x\na\nx\n', '@@', '-a', '+A', '@@', '-x', '+y')).toBe('x\nA\ny\n');
  });

  it('takes the first match after the header for a later chunk with a header (Codex)', () => {
    const file = 'f():\n  r = 1\ng():\n  r = 1\ng():\n  r = 1\n';
    expect(update(file, '@@ f():', '-  r = 1', '+  r = 0', '@@ g():', '-  r = 1', '+  r = 2')).toBe('f():\n  r = 0\ng():\n  r = 2\ng():\n  r = 1\n');
  });

  it('accepts a first-chunk header that occurs twice when the lines follow only one of them', () => {
    const file = 'def m():\n  a = 1\ndef m():\n  b = 1\n';
    expect(update(file, '@@ def m():', '-  b = 1', '+  b = 2')).toBe('def m():\n  a = 1\ndef m():\n  b = 2\n');
  });

  it('rejects a first-chunk header that occurs twice when both lead to a region', () => {
    const result = update('def m():\n  a = 1\ndef m():\n  a = 1\n', '@@ def m():', '-  a = 1', '+  a = 2');
    expect(result).toEqual({
      code: 'AMBIGUOUS_CONTEXT',
      reason: 'chunk 1 of 1 ("@@ def m():", patch line 3) matches 2 places (lines 2, 4); nothing was guessed.',
    });
  });

  it('narrows with stacked headers', () => {
    const file = 'class A:\n def m:\n  x\nclass B:\n def m:\n  x\n';
    expect(update(file, '@@ class B:', '@@  def m:', '-  x', '+  y')).toBe('class A:\n def m:\n  x\nclass B:\n def m:\n  y\n');
    expect(update(file, '@@ class C:', '@@  def m:', '-  x', '+  y')).toMatchObject({ code: 'CONTEXT_NOT_FOUND' });
  });

  it('reports an ambiguity at the exact level instead of trying fuzzier levels', () => {
    expect(update('k\nk\n', '@@', '-k', '+j')).toMatchObject({ code: 'AMBIGUOUS_CONTEXT' });
    // and a unique exact match wins over extra fuzzy matches
    expect(update('k\n  k\nk  \n', '@@', '-k', '+j')).toBe('j\n  k\nk  \n');
  });

  it('anchors *** End of File to the last lines', () => {
    expect(update('x\ny\nx\n', '@@', '-x', '+z', '*** End of File')).toBe('x\ny\nz\n');
    const missed = update('x\ny\nz\n', '@@', '-x', '+w', '*** End of File');
    expect(missed).toMatchObject({ code: 'CONTEXT_NOT_FOUND' });
    expect((missed as { reason: string }).reason).toContain('at the end of the file');
  });

  it('quotes up to 10 missing lines and says where it looked', () => {
    const body = Array.from({ length: 12 }, (_, i) => `-gone ${i}`);
    const result = update('a\nb\n', '@@', '-a', '@@', ...body) as { code: string; reason: string };
    expect(result.code).toBe('CONTEXT_NOT_FOUND');
    expect(result.reason).toContain('chunk 2 of 2 ("gone 0", patch line 5): these lines were not found in the file:\n    gone 0\n');
    expect(result.reason).toContain('    gone 9\n    ... (2 more)');
  });

  it('names a missing header', () => {
    const result = update('a\n', '@@ class Nope:', '-a') as { reason: string };
    expect(result.reason).toContain('these lines were not found in the file:\n    @@ class Nope:');
  });
});

describe('pure additions', () => {
  it('go at the end of the file even after an @@ context line, as Codex puts them', () => {
    expect(update('a\nb\nc\n', '@@ a', '+inserted')).toBe('a\nb\nc\ninserted\n');
  });

  it('still need their @@ context line to exist', () => {
    expect(update('a\nb\n', '@@ nope', '+x')).toMatchObject({ code: 'CONTEXT_NOT_FOUND' });
  });

  it("move the next chunk's search past their first @@ context line (Codex)", () => {
    expect(update('h\nx\nh\nx\n', '@@ h', '+new', '@@', '-x', '+X')).toMatchObject({ code: 'AMBIGUOUS_CONTEXT' });
    expect(update('x\nh\nx\n', '@@ h', '+new', '@@', '-x', '+X')).toBe('x\nh\nX\nnew\n');
  });

  it('go at the end of the file without context (Codex)', () => {
    expect(update('a\nb\n', '@@', '+end')).toBe('a\nb\nend\n');
  });

  it('come after an insertion a later chunk makes at the same place, in patch order (Codex)', () => {
    expect(update('q\n', '@@', '+P', '@@', ' q', '+a')).toBe('q\nP\na\n');
  });
});

describe("an empty last line (Codex: the file's final newline written as a line)", () => {
  it('is dropped from the old lines, and an empty last new line with it, when the chunk is not found', () => {
    expect(update('alpha\n', '@@', '-alpha', '-', '+alpha', '+', '+')).toBe('alpha\n\n');
    expect(update('a\nb\n', '@@', ' a', '-b', '-')).toBe('a\n');
  });

  it('stays a new line when it was context and the chunk adds after it', () => {
    expect(update('a\n', '@@', ' a', ' ', '+x')).toBe('a\n\nx\n');
  });

  it('leaves the new lines at the search point when no old line is left', () => {
    expect(update('a\n', '@@', ' ', '+b')).toBe('\nb\na\n');
    expect(update('a\n', '@@', '-')).toBe('a\n');
  });

  it('is matched as a line when the file has one', () => {
    expect(update('a\n\nb\n', '@@', ' a', '-', '+x')).toBe('a\nx\nb\n');
  });
});

describe('rebuilding the content', () => {
  it('keeps CRLF and gives new lines CRLF', () => {
    expect(update('a\r\nb\r\n', '@@', ' a', '+new', ' b')).toBe('a\r\nnew\r\nb\r\n');
  });

  it('keeps each untouched line its own ending in a mixed file', () => {
    expect(update('a\r\nb\nc\r\n', '@@', '-c', '+C')).toBe('a\r\nb\nC\r\n');
  });

  it("ends an updated file with a newline, the file's first line ending (Codex)", () => {
    expect(update('a\nb', '@@', '-a', '+A')).toBe('A\nb\n');
    expect(update('a\nb', '@@', ' a', '-b', '+B')).toBe('a\nB\n');
    expect(update('one\r\ntwo', '@@', '-one', '+ONE')).toBe('ONE\r\ntwo\r\n');
    expect(update('a\nb', '@@', ' b', '+c')).toBe('a\nb\nc\n');
  });

  it('gives new lines the first line ending of a mixed file (Codex)', () => {
    expect(update('a\nb\r\nc\r\n', '@@', ' b', '+x', ' c')).toBe('a\nb\r\nx\nc\r\n');
  });

  it('takes a lone CR as a line break, as Codex does, and keeps it', () => {
    expect(update('a\rb\rc\n', '@@', '-b', '+B')).toBe('a\rB\rc\n');
    expect(update('a\rb\rc\n', '@@', ' a', '+x', ' b')).toBe('a\rx\rb\rc\n');
    expect(update('a\r\r\nb\n', '@@', ' a', ' ', '-b', '+B')).toBe('a\r\r\nB\r');
  });

  it('keeps the file text of fuzzily matched context lines', () => {
    expect(update('\tif x:\n\t\tgo()\n', '@@', '    if x:', '-        go()', '+        stop()')).toBe('\tif x:\n        stop()\n');
  });

  it('can empty a file', () => {
    expect(update('a\nb\n', '@@', '-a', '-b')).toBe('');
  });
});

describe('planOp', () => {
  const files: Record<string, string | 'dir' | Uint8Array> = {
    '/w/a.txt': 'old\n',
    '/w/dir': 'dir',
    '/w/bin': new Uint8Array([0xff, 0xfe, 0x00]),
    '/w/link': 'old\n',
  };
  const reader: FileReader = {
    async probe(absPath): Promise<FileProbe> {
      const entry = files[absPath];
      if (entry === undefined) return { kind: 'missing', realPath: absPath, mode: 0 };
      const realPath = absPath === '/w/link' ? '/w/a.txt' : absPath;
      return { kind: entry === 'dir' ? 'directory' : 'file', realPath, mode: 0o640 };
    },
    async read(realPath) {
      const entry = files[realPath];
      return typeof entry === 'string' ? Buffer.from(entry) : (entry as Uint8Array);
    },
  };
  const plan = (body: string) => planOp(parsePatch(`*** Begin Patch\n${body}\n*** End Patch`)[0]!, '/w', reader);

  it('plans an update as one write keeping the mode, through symlinks', async () => {
    expect(await plan('*** Update File: link\n@@\n-old\n+new')).toEqual({
      change: { kind: 'M', path: 'link' },
      steps: [{ kind: 'write', target: '/w/a.txt', content: 'new\n', mode: 0o640 }],
    });
  });

  it('plans a move as write destination then remove source', async () => {
    expect(await plan('*** Update File: a.txt\n*** Move to: sub/b.txt\n@@\n-old\n+new')).toEqual({
      change: { kind: 'M', path: 'sub/b.txt', movedFrom: 'a.txt' },
      steps: [
        { kind: 'write', target: '/w/sub/b.txt', content: 'new\n', mode: 0o640 },
        { kind: 'remove', target: '/w/a.txt' },
      ],
    });
  });

  it('treats a move onto the same file as a plain update', async () => {
    const result = await plan('*** Update File: a.txt\n*** Move to: link\n@@\n-old\n+new');
    expect(result).toMatchObject({ change: { kind: 'M', path: 'a.txt' }, steps: [{ kind: 'write', target: '/w/a.txt' }] });
  });

  it('gives an added file the default mode and an existing one its old mode', async () => {
    expect(await plan('*** Add File: /abs/new.txt\n+x')).toEqual({
      change: { kind: 'A', path: '/abs/new.txt' },
      steps: [{ kind: 'write', target: '/abs/new.txt', content: 'x\n', mode: undefined }],
    });
    expect(await plan('*** Add File: a.txt\n+x')).toMatchObject({ steps: [{ mode: 0o640 }] });
  });

  it.each([
    ['*** Update File: nope.txt\n@@\n-a', 'update', 'FILE_NOT_FOUND'],
    ['*** Delete File: nope.txt', 'delete', 'FILE_NOT_FOUND'],
    ['*** Delete File: dir', 'delete', 'IS_A_DIRECTORY'],
    ['*** Add File: dir\n+x', 'add', 'IS_A_DIRECTORY'],
    ['*** Update File: a.txt\n*** Move to: dir\n@@\n-old', 'move', 'IS_A_DIRECTORY'],
    ['*** Update File: bin\n@@\n-x', 'update', 'NOT_UTF8'],
    ['*** Update File: a.txt\n@@\n-missing', 'update', 'CONTEXT_NOT_FOUND'],
  ])('%s fails with %s %s', async (body, op, code) => {
    expect(await plan(body)).toMatchObject({ op, code });
  });

  it('turns a read error into READ_FAILED', async () => {
    const failing: FileReader = { ...reader, read: () => Promise.reject(new Error('EACCES: permission denied')) };
    const [op] = parsePatch('*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n*** End Patch');
    expect(await planOp(op!, '/w', failing)).toEqual({
      op: 'update',
      path: 'a.txt',
      code: 'READ_FAILED',
      reason: 'could not read a.txt: EACCES: permission denied',
    });
  });
});
