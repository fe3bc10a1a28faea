import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorCode } from '../../src/errors.js';
import { OutputBuffer, type OutputView } from '../../src/exec/output/buffer.js';
import { MemorySink } from './memory-sink.js';

const limits = { inlineBytes: 200, previewBytes: 96, headBytes: 32, tailBytes: 128 };
const text = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.constantFrom('\n', 'é', '中', '🎉', 'line\n', 'x'.repeat(150))), { maxLength: 60 })
  .map((parts) => parts.join('').replace(/\r/g, ''));

// What a client holds after a delivery: head + the gap read from the file + the tail.
function delivered(view: OutputView, sink: MemorySink | undefined): Buffer {
  if (!view.gap) return Buffer.from(view.text, 'utf8');
  const [from, to] = view.gap;
  const gap = sink!.file.subarray(from, to);
  expect(gap.length).toBe(to - from); // the test's cap keeps everything
  return Buffer.concat([Buffer.from(view.head ?? '', 'utf8'), gap, Buffer.from(view.text, 'utf8')]);
}

describe('output_offset and since_offset', () => {
  it('concatenating the deliveries from any sequence of offsets gives the stream (properties)', () => {
    fc.assert(
      fc.property(text, fc.array(fc.record({ at: fc.nat(), lose: fc.boolean(), back: fc.option(fc.nat()) }), { maxLength: 12 }), (stream, ops) => {
        let sink: MemorySink | undefined;
        const buffer = new OutputBuffer(limits, () => (sink = new MemorySink(1 << 20)));
        const bytes = Buffer.from(stream, 'utf8');
        const points = ops.map((op) => ({ ...op, at: op.at % (bytes.length + 1) })).sort((a, b) => a.at - b.at);
        let got = Buffer.alloc(0); // what the client has, stream bytes [0, got.length)
        let pushed = 0;
        let lost = false;
        const receive = (view: OutputView) => {
          expect(view.start).toBeLessThanOrEqual(got.length);
          got = Buffer.concat([got.subarray(0, view.start), delivered(view, sink)]);
          expect(got.length).toBe(view.offset);
        };
        for (const op of points) {
          buffer.push(bytes.subarray(pushed, op.at));
          pushed = op.at;
          // after a lost reply, or whenever it likes, the client asks again from an offset it has
          if (lost || op.back !== null) buffer.rewind(lost ? got.length : Math.min(op.back!, got.length));
          const view = buffer.take(false);
          lost = op.lose;
          if (!lost) receive(view);
        }
        buffer.push(bytes.subarray(pushed));
        if (lost) buffer.rewind(got.length);
        receive(buffer.take(true));
        expect(got.equals(bytes)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('past the cap keeps the last bytes in the tail file and refuses offsets it no longer has', () => {
    const sink = new MemorySink(300);
    const buffer = new OutputBuffer(limits, () => sink);
    const stream = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join('')); // > the 64 KiB kept in memory
    buffer.push(stream);
    const view = buffer.take(false);
    expect(sink.file.equals(stream.subarray(0, 300))).toBe(true);
    expect(sink.tailFile!.equals(stream.subarray(stream.length - 128))).toBe(true);
    expect(view.spill).toMatchObject({ truncated: true, tailFile: sink.tailPath, tailOffset: stream.length - 128 });
    expect(view.omitted).toContain('were not kept');
    const refused = (offset: number) => {
      try {
        buffer.rewind(offset);
      } catch (error) {
        return errorCode(error);
      }
      return 'accepted';
    };
    expect(refused(400)).toBe('SINCE_OFFSET_NOT_RETAINED');
    expect(refused(stream.length - 70_000)).toBe('SINCE_OFFSET_NOT_RETAINED');
    expect(refused(stream.length + 1)).toBe('SINCE_OFFSET_AHEAD');
    // a refused rewind changes nothing: the next take starts where the last one ended
    buffer.push(Buffer.from('more\n'));
    expect(buffer.take(false)).toMatchObject({ start: stream.length, text: 'more\n' });
    // from the tail and from the file, it delivers again
    buffer.rewind(stream.length - 50);
    expect(buffer.take(false).text).toBe(stream.subarray(stream.length - 50).toString() + 'more\n');
    buffer.rewind(10);
    const again = buffer.take(true);
    expect(again.head).toBe(
      stream
        .subarray(10, 10 + 32)
        .toString()
        .replace(/[^\n]*$/, ''),
    );
    expect(again.start).toBe(10);
  });

  it('names the lines between head and tail exactly (properties)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')),
          { minLength: 1, maxLength: 80 },
        ),
        fc.boolean(),
        (lines, endsWithNewline) => {
          let sink: MemorySink | undefined;
          const buffer = new OutputBuffer(limits, () => (sink = new MemorySink(1 << 20)));
          const stream = lines.join('\n') + (endsWithNewline ? '\n' : '');
          buffer.push(Buffer.from(stream));
          const view = buffer.take(true);
          if (!view.gap) return;
          const match = /lines (\d+)-(\d+), (\d+) bytes at stream offsets (\d+)-(\d+)\) not shown.*sed -n '(\d+),(\d+)p'/.exec(view.omitted!);
          expect(match).not.toBeNull();
          const [first, last, size, from, to] = match!.slice(1, 6).map(Number) as [number, number, number, number, number];
          expect([from, to + 1, size]).toEqual([view.gap[0], view.gap[1], view.gap[1] - view.gap[0]]);
          const file = sink!.file.toString();
          const lineOf = (offset: number) => file.slice(0, offset).split('\n').length;
          expect([first, last]).toEqual([lineOf(from), lineOf(to)]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
