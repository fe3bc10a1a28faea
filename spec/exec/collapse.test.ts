import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapse, headOf, PieceCollapser, tailOf } from '../../src/exec/output/collapse.js';
import { OutputBuffer } from '../../src/exec/output/buffer.js';
import { chunked, MemorySink } from './memory-sink.js';

const noCr = fc.string({ unit: 'grapheme', maxLength: 300 }).map((s) => s.replace(/\r/g, ''));
const progress = fc
  .array(fc.oneof(fc.constantFrom('\r', '\n', '\r\r', 'é', '中', 'done\n'), fc.string({ unit: 'grapheme', maxLength: 12 })), { maxLength: 60 })
  .map((parts) => parts.join(''));
const bytes = (s: string) => Buffer.from(s, 'utf8');
const str = (b: Uint8Array) => Buffer.from(b).toString('utf8');

describe('collapse', () => {
  it('shows each line in its last state', () => {
    expect(str(collapse(bytes('10%\r20%\r30%\ndone\n')))).toBe('30%\ndone\n');
    expect(str(collapse(bytes('abc\r\r\nxyz\r')))).toBe('abc\nxyz');
    expect(str(collapse(bytes('\r\r\n')))).toBe('\n');
  });

  it('is the identity on text without \\r', () => {
    fc.assert(
      fc.property(noCr, (s) => {
        expect(str(collapse(bytes(s)))).toBe(s);
      }),
    );
  });

  it('keeps every newline, is idempotent and never grows', () => {
    fc.assert(
      fc.property(progress, (s) => {
        const once = collapse(bytes(s));
        expect(str(once).split('\n').length).toBe(s.split('\n').length);
        expect(str(collapse(once))).toBe(str(once));
        expect(once.length).toBeLessThanOrEqual(bytes(s).length);
      }),
    );
  });

  it('head and tail cuts are collapsed views of the raw bytes they name, within budget', () => {
    fc.assert(
      fc.property(progress, fc.integer({ min: 8, max: 200 }), (s, budget) => {
        const raw = bytes(s);
        const head = headOf(raw, budget);
        expect(head.bytes.length).toBeLessThanOrEqual(budget);
        expect(head.bytes.equals(Buffer.from(collapse(raw.subarray(0, head.rawEnd))))).toBe(true);
        const tail = tailOf(raw, budget);
        expect(tail.bytes.length).toBeLessThanOrEqual(budget);
        expect(tail.bytes.equals(Buffer.from(collapse(raw.subarray(tail.rawStart))))).toBe(true);
        if (collapse(raw).length <= budget) expect(tail.rawStart).toBe(0);
      }),
    );
  });

  it('what a result shows does not depend on how the stream was read (properties)', () => {
    fc.assert(
      fc.property(
        progress,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        (s, cutsA, cutsB, takes) => {
          const raw = bytes(s);
          const takeAt = takes.map((t) => t % (raw.length + 1)).sort((a, b) => a - b);
          const views = (cuts: number[]) => {
            const buffer = new OutputBuffer({ inlineBytes: 256, previewBytes: 96, headBytes: 32, tailBytes: 4096 }, () => new MemorySink(1 << 20));
            const shown: string[] = [];
            let at = 0;
            // the same take points, whatever the chunking: split chunks there
            for (const chunk of chunked(raw, [...cuts, ...takeAt])) {
              buffer.push(chunk);
              at += chunk.length;
              if (takeAt.includes(at)) shown.push(JSON.stringify(buffer.take(false)));
            }
            shown.push(JSON.stringify(buffer.take(true)));
            return shown;
          };
          expect(views(cutsA)).toEqual(views(cutsB));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('collapsing in pieces gives what collapsing the whole gives (properties)', () => {
    fc.assert(
      fc.property(progress, fc.array(fc.nat(), { maxLength: 12 }), (s, cuts) => {
        const collapser = new PieceCollapser();
        for (const piece of chunked(bytes(s), cuts)) collapser.push(piece);
        expect(str(collapser.end())).toBe(str(collapse(bytes(s))));
      }),
    );
  });

  it('a bar redrawn 10,000 times past the spill limit shows as its last state, counts unchanged', () => {
    const sink = new MemorySink(1 << 20);
    const buffer = new OutputBuffer({ inlineBytes: 16 * 1024, previewBytes: 4096, headBytes: 1024, tailBytes: 1 << 20 }, () => sink);
    let raw = 'building\n';
    for (let i = 1; i <= 10_000; i++) raw += `\rprogress ${String(i).padStart(5)}/10000`;
    raw += '\ndone\n';
    for (const piece of chunked(bytes(raw), [4096, 70_000, 150_001])) buffer.push(piece);
    const view = buffer.take(true);
    expect(view.text).toBe('building\nprogress 10000/10000\ndone\n');
    expect(view.head).toBeUndefined();
    expect(view.spill).toMatchObject({ chars: raw.length, lines: 3 });
    expect(sink.file.toString()).toBe(raw); // the file keeps the decoded stream, every frame
  });
});
