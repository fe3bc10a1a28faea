import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePatch, PatchParseError } from '../../src/patch/index.js';

const wrap = (...body: string[]) => ['*** Begin Patch', ...body, '*** End Patch'].join('\n');

function parseError(text: string): PatchParseError {
  try {
    parsePatch(text);
  } catch (error) {
    if (error instanceof PatchParseError) return error;
    throw error;
  }
  throw new Error('expected a PatchParseError');
}

describe('parsePatch: structure', () => {
  it('reads add, delete and update-with-move hunks in order', () => {
    const ops = parsePatch(
      wrap(
        '*** Add File: a.txt',
        '+one',
        '+',
        '*** Delete File: b.txt',
        '*** Update File: c.txt',
        '*** Move to: d/c.txt',
        '@@ def f():',
        ' ctx',
        '-old',
        '+new',
      ),
    );
    expect(ops).toEqual([
      { kind: 'add', path: 'a.txt', line: 2, contents: 'one\n\n' },
      { kind: 'delete', path: 'b.txt', line: 5 },
      {
        kind: 'update',
        path: 'c.txt',
        line: 6,
        movePath: 'd/c.txt',
        chunks: [
          {
            contexts: ['def f():'],
            endOfFile: false,
            line: 8,
            lines: [
              { kind: ' ', text: 'ctx' },
              { kind: '-', text: 'old' },
              { kind: '+', text: 'new' },
            ],
          },
        ],
      },
    ]);
  });

  it('stacks consecutive @@ headers, outermost first', () => {
    const [op] = parsePatch(wrap('*** Update File: x', '@@ class A:', '@@', '@@     def m(self):', '-a', '+b'));
    expect(op?.kind === 'update' && op.chunks[0]?.contexts).toEqual(['class A:', '    def m(self):']);
  });

  it('accepts a first chunk without @@, and marks *** End of File', () => {
    const [op] = parsePatch(wrap('*** Update File: x', ' keep', '-a', '+b', '*** End of File'));
    expect(op?.kind === 'update' && op.chunks).toEqual([
      {
        contexts: [],
        endOfFile: true,
        line: 3,
        lines: [
          { kind: ' ', text: 'keep' },
          { kind: '-', text: 'a' },
          { kind: '+', text: 'b' },
        ],
      },
    ]);
  });

  it('treats blank lines between chunks as separators and inside a chunk as empty context', () => {
    const [op] = parsePatch(wrap('*** Update File: x', '@@', '-a', '', ' b', '', '', '@@', '-c', '+d', ''));
    expect(op?.kind === 'update' && op.chunks.map((chunk) => chunk.lines)).toEqual([
      [
        { kind: '-', text: 'a' },
        { kind: ' ', text: '' },
        { kind: ' ', text: 'b' },
      ],
      [
        { kind: '-', text: 'c' },
        { kind: '+', text: 'd' },
      ],
    ]);
  });

  it('keeps an explicit empty context line (" ") at the end of a chunk', () => {
    const [op] = parsePatch(wrap('*** Update File: x', '@@', '-a', ' '));
    expect(op?.kind === 'update' && op.chunks[0]?.lines).toEqual([
      { kind: '-', text: 'a' },
      { kind: ' ', text: '' },
    ]);
  });

  it('accepts CRLF patch text, padded markers and blank lines around the patch', () => {
    const text = '\r\n  *** Begin Patch \r\n\r\n  *** Delete File:  gone.txt  \r\n*** End Patch\t\r\n\r\n';
    expect(parsePatch(text)).toEqual([{ kind: 'delete', path: 'gone.txt', line: 4 }]);
  });

  it.each(["<<'EOF'", '<<EOF', '<<"EOF"'])('strips a %s heredoc wrapper', (opener) => {
    expect(parsePatch(`${opener}\n${wrap('*** Delete File: a')}\nEOF\n`)).toEqual([{ kind: 'delete', path: 'a', line: 3 }]);
  });

  it('reads an Add File with no lines as an empty file', () => {
    expect(parsePatch(wrap('*** Add File: empty.txt'))).toEqual([{ kind: 'add', path: 'empty.txt', line: 2, contents: '' }]);
  });

  it('reads Add File lines after CRLF and mixed line breaks, keeping a CR inside a line', () => {
    const text = '\r\n*** Begin Patch\n*** Delete File: x\r\n*** Add File: a\r\n+one\r\n+\n+t\rwo\r\r\n+three\r\n*** Add File: b\n+b\r\n*** End Patch';
    expect(parsePatch(text)).toEqual([
      { kind: 'delete', path: 'x', line: 3 },
      { kind: 'add', path: 'a', line: 4, contents: 'one\n\nt\rwo\r\nthree\n' },
      { kind: 'add', path: 'b', line: 9, contents: 'b\n' },
    ]);
  });

  it('gives Add File contents equal to its + lines joined with LF, whatever the line breaks', () => {
    const addLine = fc.string({ unit: fc.constantFrom('a', 'é', '\r', '+', ' ', '*', '@'), maxLength: 8 });
    const section = fc.record({ lines: fc.array(addLine, { maxLength: 6 }), breaks: fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 8, maxLength: 8 }) });
    fc.assert(
      fc.property(fc.array(section, { minLength: 1, maxLength: 4 }), (sections) => {
        let text = '*** Begin Patch\n';
        sections.forEach((section, i) => {
          text += `*** Add File: f${i}${section.breaks[0]}`;
          section.lines.forEach((line, k) => (text += `+${line}${section.breaks[(k + 1) % 8]}`));
        });
        const ops = parsePatch(`${text}*** End Patch`);
        // a line's own last CR followed by an LF break reads as a CRLF break, as in any CRLF text
        const expected = (lines: string[], breaks: string[]) =>
          lines.map((line, k) => (breaks[(k + 1) % 8] === '\n' && line.endsWith('\r') ? line.slice(0, -1) : line) + '\n').join('');
        expect(ops.map((op) => (op.kind === 'add' ? op.contents : null))).toEqual(sections.map((s) => expected(s.lines, s.breaks)));
      }),
      { numRuns: 500 },
    );
  });

  it('ends a chunk at a padded hunk header', () => {
    const ops = parsePatch(wrap('*** Update File: a', '@@', '-x', '+y', '  *** Delete File: b'));
    expect(ops.map((op) => op.kind)).toEqual(['update', 'delete']);
  });
});

describe('parsePatch: errors carry the 1-based line and what would be valid', () => {
  it.each([
    ['empty text', '', 1, "must start with '*** Begin Patch'"],
    ['no Begin Patch', 'hello\n*** End Patch', 1, "The first line of the patch must be '*** Begin Patch'"],
    ['no End Patch', '*** Begin Patch\n*** Delete File: a\n', 2, "The last line of the patch must be '*** End Patch'"],
    ['only Begin Patch', '*** Begin Patch', 1, "The last line of the patch must be '*** End Patch'"],
    ['no hunks', '\n\n*** Begin Patch\n\n*** End Patch', 5, 'no file operations'],
    [
      'invalid hunk header',
      wrap('*** Delete File: a', '*** Frobnicate File: foo'),
      3,
      "'*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'.",
    ],
    ['add line without +', wrap('*** Add File: a', '+x', 'y'), 4, "every line of an '*** Add File:' section must start with '+'"],
    ['empty update hunk', wrap('*** Update File: foo.txt', '*** Delete File: b'), 2, "Update file hunk for path 'foo.txt' is empty"],
    ['empty path', wrap('*** Add File:   ', '+x'), 2, 'empty path'],
    ['empty move path', wrap('*** Update File: a', '*** Move to:', '@@', '-x'), 3, 'empty path'],
    ['line without prefix', wrap('*** Update File: a', '@@', ' ok', 'oops'), 5, "Unexpected line found in update hunk: 'oops'"],
    ['second chunk without @@', wrap('*** Update File: a', '@@', '-x', '', 'y'), 6, "a new chunk starts with '@@'"],
    ['bad chunk header', wrap('*** Update File: a', '@@-1,2 +1,2 @@', '-x'), 3, 'is not a valid chunk header'],
    ['header without lines', wrap('*** Update File: a', '@@ foo', '*** Delete File: b'), 4, 'Update hunk does not contain any lines'],
    ['End of File right after the header', wrap('*** Update File: a', '@@', '*** End of File'), 4, 'Update hunk does not contain any lines'],
    ['heredoc counts its opener line', `<<'EOF'\n${wrap('*** Nope')}\nEOF`, 3, 'is not a valid hunk header'],
    ['NUL in a path', wrap('*** Add File: a\u0000b', '+x'), 2, "the path in '*** Add File: a\\0b' holds a NUL character"],
    ['NUL in a move path', wrap('*** Update File: a', '*** Move to: b\u0000', '@@', '-x'), 3, 'holds a NUL character'],
    [
      'a 1 MB line is quoted in 200 characters',
      wrap('*** Update File: a', '@@', ' ok', 'o'.repeat(1_000_000)),
      5,
      `'${'o'.repeat(200)}… and 999,800 more characters'`,
    ],
  ])('%s', (_name, text, line, detail) => {
    const error = parseError(text);
    expect(error.code).toBe('PATCH_PARSE');
    expect(error.line).toBe(line);
    expect(error.message).toContain(`line ${line}:`);
    expect(error.message).toContain(detail);
  });
});
