import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnsiStripper, stripAnsi } from '../../src/exec/output/ansi.js';

const ESC = '\x1b';

// Text built from plain characters and the escape sequences terminals send.
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('\r\n', '\r', '\n', '\t', ESC, `${ESC}[`, `${ESC}]`, `${ESC}(`, '\x07', `${ESC}\\`),
  fc
    .tuple(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }), fc.constantFrom('m', 'K', 'H', 'J', 'A'))
    .map(([ns, f]) => `${ESC}[${ns.join(';')}${f}`),
  fc.string({ maxLength: 10 }).map((title) => `${ESC}]0;${title.replace(/[\x07\x1b]/g, '')}\x07`),
  fc.constantFrom(`${ESC}(B`, `${ESC})0`, `${ESC}7`, `${ESC}8`, `${ESC}=`, `${ESC}#8`, `${ESC}P1$r${ESC}\\`),
);
const terminalText = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

function stripInChunks(bytes: Buffer, cuts: number[]): Buffer {
  const stripper = new AnsiStripper();
  const out: Uint8Array[] = [];
  let at = 0;
  // a result is valid until the next push: copied, as every consumer copies what it keeps
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
    out.push(Buffer.from(stripper.push(bytes.subarray(at, cut))));
    at = cut;
  }
  out.push(Buffer.from(stripper.push(bytes.subarray(at))), stripper.end());
  return Buffer.concat(out);
}

describe('AnsiStripper', () => {
  it('never leaves an ESC byte', () => {
    fc.assert(
      fc.property(terminalText, (text) => {
        expect(stripAnsi(text)).not.toContain(ESC);
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same result however the input is chunked', () => {
    fc.assert(
      fc.property(terminalText, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const bytes = Buffer.from(text, 'utf8');
        expect(stripInChunks(bytes, cuts).equals(stripInChunks(bytes, []))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves text without escapes or carriage returns untouched', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((s) => !s.includes(ESC) && !s.includes('\r')),
        (text) => {
          expect(stripAnsi(text)).toBe(text);
        },
      ),
    );
  });

  it.each([
    ['colour', `${ESC}[1;31mred${ESC}[0m`, 'red'],
    ['cursor movement and erase', `a${ESC}[2K${ESC}[10Gb${ESC}[?25l`, 'ab'],
    ['OSC ended by BEL', `${ESC}]0;title\x07text`, 'text'],
    ['OSC ended by ST', `${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\`, 'link'],
    ['charset select', `${ESC}(Bplain${ESC})0`, 'plain'],
    ['two-byte sequences', `${ESC}7saved${ESC}8${ESC}=`, 'saved'],
    ['a lone ESC before a newline keeps the newline', `a${ESC}\nb`, 'a\nb'],
    ['a lone ESC at the end', `done${ESC}`, 'done'],
    ['CRLF becomes LF', 'one\r\ntwo\r\n', 'one\ntwo\n'],
    ['a lone CR stays', 'progress 10%\rprogress 20%\n', 'progress 10%\rprogress 20%\n'],
    ['DCS string', `${ESC}P+q544e${ESC}\\after`, 'after'],
    ['multi-byte characters pass', `é${ESC}[0m中文🎉`, 'é中文🎉'],
  ])('%s', (_name, input, expected) => {
    expect(stripAnsi(input)).toBe(expected);
  });

  it('writes clean bytes into one buffer of its own, reused from push to push (no allocation per read)', () => {
    const stripper = new AnsiStripper();
    const first = stripper.push(Buffer.from(`${ESC}[31mred${ESC}[0m\n`));
    const memory = first.buffer;
    expect(Buffer.from(first).toString()).toBe('red\n');
    for (let i = 0; i < 100; i++) {
      const clean = stripper.push(Buffer.from(`${ESC}[1m${'x'.repeat(4000)}${ESC}[0m\r\n`));
      expect(clean.buffer).toBe(memory);
      expect(clean.length).toBe(4001);
    }
    const plain = Buffer.from('no escapes\n');
    expect(stripper.push(plain)).toBe(plain); // nothing to strip: the chunk itself
  });

  it('keeps a CR held at a chunk boundary until it knows what follows', () => {
    const stripper = new AnsiStripper();
    expect(Buffer.from(stripper.push(Buffer.from('a\r'))).toString()).toBe('a');
    expect(Buffer.from(stripper.push(Buffer.from('\nb'))).toString()).toBe('\nb');
    expect(Buffer.from(stripper.push(Buffer.from('\r'))).toString()).toBe('');
    expect(Buffer.from(stripper.end()).toString()).toBe('\r');
  });
});
