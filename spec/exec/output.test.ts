import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '../../src/exec/output/buffer.js';
import { chunked, MemorySink } from './memory-sink.js';
import { countInto, incompleteTailLength } from '../../src/exec/output/utf8.js';

const limitsOf = (inlineBytes: number, previewBytes: number, headBytes = Math.floor(previewBytes / 4), tailBytes = 1 << 20) => ({
  inlineBytes,
  previewBytes,
  headBytes,
  tailBytes,
});

const text = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('\n', 'é', '中', '🎉', 'line\n', 'x'.repeat(300))), { maxLength: 80 })
  .map((parts) => parts.join('').replace(/\r/g, '')); // "\r" collapses: see collapse.test.ts

describe('OutputBuffer', () => {
  it('counts, spill file and preview agree with the true stream (properties)', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 16, max: 400 }),
        fc.integer({ min: 8, max: 200 }),
        fc.integer({ min: 1, max: 1500 }),
        fc.array(fc.nat({ max: 20 }), { maxLength: 6 }),
        (stream, cuts, inlineBytes, previewBytes, capBytes, takesAt) => {
          let sink: MemorySink | undefined;
          const buffer = new OutputBuffer(limitsOf(inlineBytes, Math.min(previewBytes, inlineBytes)), () => (sink = new MemorySink(capBytes)));
          const bytes = Buffer.from(stream, 'utf8');
          const chunks = chunked(bytes, cuts);
          const shown: string[] = [];
          chunks.forEach((chunk, i) => {
            buffer.push(chunk);
            if (takesAt.includes(i)) shown.push(buffer.take(false).text);
          });
          const last = buffer.take(true);
          shown.push(last.text);
          if (bytes.length <= inlineBytes) {
            // within the inline limit: every byte is shown exactly once, in order
            expect(sink).toBeUndefined();
            expect(last.spill).toBeUndefined();
            expect(shown.join('')).toBe(stream);
            return;
          }
          expect(sink).toBeDefined();
          const counts = { chars: 0, newlines: 0 };
          countInto(counts, bytes);
          expect(last.spill!.chars).toBe([...stream].length);
          expect(last.spill!.lines).toBe(counts.newlines + (stream.endsWith('\n') ? 0 : 1));
          // the file is a prefix of the stream, exactly min(cap, size) bytes
          expect(sink!.file.equals(bytes.subarray(0, Math.min(capBytes, bytes.length)))).toBe(true);
          expect(last.spill!.truncated).toBe(bytes.length > capBytes);
          // the preview is a suffix of the stream; with the head, both fit the preview budget
          const budget = Math.min(previewBytes, inlineBytes);
          expect(Buffer.byteLength(last.text) + Buffer.byteLength(last.head ?? '')).toBeLessThanOrEqual(budget);
          expect(stream.endsWith(last.text)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never splits a multi-byte character between two results', () => {
    const buffer = new OutputBuffer(limitsOf(1024, 256), () => new MemorySink(1 << 20));
    const euro = Buffer.from('€', 'utf8'); // 3 bytes
    buffer.push(Buffer.from('price: '));
    buffer.push(euro.subarray(0, 1));
    expect(buffer.take(false).text).toBe('price: ');
    buffer.push(euro.subarray(1, 2));
    expect(buffer.take(false).text).toBe('');
    buffer.push(euro.subarray(2));
    buffer.push(Buffer.from('5\n'));
    expect(buffer.take(false).text).toBe('€5\n');
  });

  it('keeps memory bounded however much is pushed', () => {
    const buffer = new OutputBuffer(limitsOf(1024, 128, 32, 4096), () => new MemorySink(4096));
    const chunk = Buffer.alloc(65536, 0x61);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 2000; i++) buffer.push(chunk); // 128 MiB
    const view = buffer.take(true);
    expect(view.spill!.chars).toBe(2000 * 65536);
    expect(view.text.length).toBe(128 - 32);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('utf8 helpers', () => {
  it('finds an incomplete trailing character', () => {
    const snowman = Buffer.from('☃'); // e2 98 83
    expect(incompleteTailLength(Buffer.from('abc'))).toBe(0);
    expect(incompleteTailLength(snowman)).toBe(0);
    expect(incompleteTailLength(snowman.subarray(0, 1))).toBe(1);
    expect(incompleteTailLength(snowman.subarray(0, 2))).toBe(2);
    expect(incompleteTailLength(Buffer.from('🎉').subarray(0, 3))).toBe(3);
  });

  it('counts code points and newlines on ASCII and non-ASCII paths alike', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const counts = { chars: 0, newlines: 0 };
        countInto(counts, Buffer.from(s, 'utf8'));
        expect(counts.chars).toBe([...s].length);
        expect(counts.newlines).toBe(s.split('\n').length - 1);
      }),
    );
    const dense = Buffer.from('y\n'.repeat(10_000));
    const counts = { chars: 0, newlines: 0 };
    countInto(counts, dense);
    expect(counts).toEqual({ chars: 20_000, newlines: 10_000 });
  });
});
