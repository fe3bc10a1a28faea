import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../src/features/context/frontmatter.js';

function fields(text: string): Record<string, string> {
  const result = parseFrontMatter(text);
  if (!result.ok) throw new Error(`expected front matter, got: ${result.reason}`);
  return Object.fromEntries(result.fields);
}

const fm = (...lines: string[]) => ['---', ...lines, '---', '# Body', ''].join('\n');

describe('front matter: the block', () => {
  it('reads name and description, and keeps the body', () => {
    const result = parseFrontMatter(fm('name: pdf', 'description: Read and write PDF files.'));
    expect(result).toEqual({
      ok: true,
      fields: new Map([
        ['name', 'pdf'],
        ['description', 'Read and write PDF files.'],
      ]),
      body: '# Body\n',
    });
  });

  it('refuses a file without a leading --- line, or without a closing one', () => {
    expect(parseFrontMatter('name: x\n---\n')).toMatchObject({ ok: false, reason: expect.stringContaining('does not start with') });
    expect(parseFrontMatter('\n---\nname: x\n---\n')).toMatchObject({ ok: false });
    expect(parseFrontMatter('---\nname: x\ndescription: y\n')).toMatchObject({ ok: false, reason: expect.stringContaining('unterminated') });
    expect(parseFrontMatter('')).toMatchObject({ ok: false });
  });

  it('accepts a BOM, CRLF line ends, trailing blanks on fences and a ... terminator', () => {
    expect(fields('\uFEFF---  \r\nname: a\r\ndescription: b c\r\n---\r\nbody')).toEqual({ name: 'a', description: 'b c' });
    expect(fields('---\nname: a\n...\nbody')).toEqual({ name: 'a' });
  });

  it('accepts an empty block', () => {
    expect(fields('---\n---\n')).toEqual({});
  });
});

describe('front matter: scalars', () => {
  it('plain: trims, drops comments, keeps inner colons and hashes', () => {
    expect(fields(fm('name:   spaced   ', 'description: Use when: the user asks # a comment', 'url: http://x.test/a#frag'))).toEqual({
      name: 'spaced',
      description: 'Use when: the user asks',
      url: 'http://x.test/a#frag',
    });
  });

  it('plain: continues on more-indented lines, folded with spaces; a blank line is a newline', () => {
    expect(fields(fm('description: first line', '  second line', '    third', '', '  after blank', 'name: n'))).toEqual({
      description: 'first line second line third\nafter blank',
      name: 'n',
    });
    expect(fields(fm('description:', '  starts on', '  the next line'))).toEqual({ description: 'starts on the next line' });
  });

  it('double quoted: escapes, unicode, folding, escaped line breaks', () => {
    expect(fields(fm('description: "Tab\\there, quote \\" slash \\\\ \\u00e9\\x41 \\U0001F600"'))).toEqual({
      description: 'Tab\there, quote " slash \\ éA 😀',
    });
    expect(fields(fm('description: "one', '  two', '', '  three"'))).toEqual({ description: 'one two\nthree' });
    expect(fields(fm('description: "joined\\', '    together"'))).toEqual({ description: 'joinedtogether' });
    expect(fields(fm('description: "keeps escaped tab\\t', '  next"'))).toEqual({ description: 'keeps escaped tab\t next' });
    expect(fields(fm('description: "# not a comment" # but this is'))).toEqual({ description: '# not a comment' });
  });

  it("single quoted: '' is a quote, and it may span lines", () => {
    expect(fields(fm("description: 'It''s ok: really'", "name: 'a", "  b'"))).toEqual({ description: "It's ok: really", name: 'a b' });
    expect(fields(fm("description: 'no \\n escapes'"))).toEqual({ description: 'no \\n escapes' });
  });

  it('literal block |: keeps newlines; chomping clip, strip (-) and keep (+)', () => {
    expect(fields(fm('description: |', '  line one', '    indented', '  line three', '', 'name: x'))).toEqual({
      description: 'line one\n  indented\nline three\n',
      name: 'x',
    });
    expect(fields(fm('description: |-', '  a', '  b', '', ''))).toEqual({ description: 'a\nb' });
    expect(fields(fm('description: |+', '  a', '', ''))).toEqual({ description: 'a\n\n\n' });
    expect(fields(fm('description: |2', '   one extra space'))).toEqual({ description: ' one extra space\n' });
  });

  it('folded block >: joins lines, blank lines are newlines, more-indented lines kept', () => {
    expect(fields(fm('description: >', '  Use this skill', '  for PDFs.', '', '  Second paragraph.'))).toEqual({
      description: 'Use this skill for PDFs.\nSecond paragraph.\n',
    });
    expect(fields(fm('description: >-', '  a', '  b', '    code', '  c'))).toEqual({ description: 'a b\n  code\nc' });
    expect(fields(fm('description: > # comment', '  x'))).toEqual({ description: 'x\n' });
  });

  it('empty, null and tilde values read as empty', () => {
    expect(fields(fm('name:', 'description: ~', 'other: null'))).toEqual({ name: '', description: '', other: '' });
  });

  it('ignores tags and anchors in front of a value, and skips aliases', () => {
    expect(fields(fm('name: !!str 123', 'description: &d text', 'copy: *d'))).toEqual({ name: '123', description: 'text' });
  });

  it('quoted keys', () => {
    expect(fields(fm('"name": quoted', "'description': single"))).toEqual({ name: 'quoted', description: 'single' });
  });
});

describe('front matter: structure it does not read', () => {
  it('skips nested mappings and sequences, keeps the keys around them', () => {
    expect(fields(fm('name: n', 'metadata:', '  version: 1', '  tags: [a, b]', 'allowed-tools:', '  - Bash', '  - Read', 'description: d'))).toEqual({
      name: 'n',
      description: 'd',
    });
  });

  it('later duplicates win; comments and stray lines are skipped', () => {
    expect(fields(fm('# leading comment', 'name: first', 'not a key line', '- a sequence item', 'name: second'))).toEqual({ name: 'second' });
  });

  it('an unterminated quoted value loses only that key', () => {
    expect(fields(fm('description: "never closed', 'name: fine'))).toEqual({ name: 'fine' });
  });

  it('a bad block header loses only that key', () => {
    expect(fields(fm('description: |x', '  y', 'name: fine'))).toEqual({ name: 'fine' });
  });
});

describe('front matter: properties', () => {
  it('never throws, whatever the input', () => {
    const yamlish = fc.array(
      fc.oneof(
        fc.constantFrom('---', '...', 'name: x', 'description: |', 'description: >-', '  indented', '"', "'", '\\', '#', '- item', ': ', ''),
        fc.string({ unit: 'binary', maxLength: 40 }),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(yamlish, (lines) => {
        parseFrontMatter(lines.join('\n'));
        parseFrontMatter(['---', ...lines, '---'].join('\n'));
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads back any string written as a JSON (double-quoted) scalar', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (value) => {
        fc.pre(!value.includes('\u2028') && !value.includes('\u2029'));
        expect(fields(fm(`description: ${JSON.stringify(value)}`)).description).toBe(value);
      }),
    );
  });

  it('reads back any one-line string written as a single-quoted scalar', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (value) => {
        fc.pre(!/[\r\n\u0085\u2028\u2029]/.test(value) && value === value.trim());
        expect(fields(fm(`description: '${value.replaceAll("'", "''")}'`)).description).toBe(value);
      }),
    );
  });

  it('reads back lines written as a literal block with strip chomping', () => {
    const line = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
      .filter((text) => !/[\r\n\u0085\u2028\u2029]/.test(text) && text.trim() === text && text !== '');
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        expect(fields(fm('description: |-', ...lines.map((text) => `  ${text}`))).description).toBe(lines.join('\n'));
      }),
    );
  });
});
