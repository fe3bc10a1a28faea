import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEAD_BYTES, LineFramer, TAIL_BYTES, type Frame } from '../../../src/transport/stdio/framing.js';

// Splits `bytes` at the given cut points (any order, duplicates allowed).
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  return pieces;
}

function describeFrame(frame: Frame): string {
  return frame.kind === 'line' ? `L:${frame.bytes.toString('hex')}` : `O:${frame.size}:${frame.head.toString('hex')}:${frame.tail.toString('hex')}`;
}

// The reference: the same framing computed on the whole input at once.
function reference(bytes: Buffer, limit: number): string[] {
  const out: string[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
    const line = bytes.subarray(start, newline);
    if (line.length > limit) {
      out.push(`O:${line.length}:${line.subarray(0, HEAD_BYTES).toString('hex')}:${line.subarray(Math.max(0, line.length - TAIL_BYTES)).toString('hex')}`);
    } else {
      const bare = line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line;
      out.push(`L:${bare.toString('hex')}`);
    }
    start = newline + 1;
  }
  return out;
}

// Bytes rich in newlines and carriage returns, with long runs to cross the limit.
const streamBytes = fc
  .array(
    fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc.constant(new Uint8Array([0x0a])),
      fc.constant(new Uint8Array([0x0d, 0x0a])),
      fc.integer({ min: 0, max: 9000 }).map((n) => new Uint8Array(n).fill(0x41)),
    ),
    { maxLength: 30 },
  )
  .map((parts) => Buffer.concat(parts.map((part) => Buffer.from(part))));

describe('LineFramer', () => {
  it('gives the same frames however the bytes are split, never throws, and stays within its bound', () => {
    fc.assert(
      fc.property(streamBytes, fc.array(fc.nat(), { maxLength: 20 }), fc.integer({ min: 1, max: 8192 }), (bytes, cuts, limit) => {
        const framer = new LineFramer(limit);
        const frames: string[] = [];
        for (const piece of split(bytes, cuts)) {
          for (const frame of framer.push(piece)) frames.push(describeFrame(frame));
          expect(framer.buffered).toBeLessThanOrEqual(Math.max(limit, HEAD_BYTES + TAIL_BYTES));
        }
        expect(frames).toEqual(reference(bytes, limit));
      }),
      { numRuns: 300 },
    );
  });

  it('streams past a 17 MiB line holding only its head and tail, then frames the next line', () => {
    const limit = 16 * 1024 * 1024;
    const framer = new LineFramer(limit);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    framer.push(Buffer.from('{"jsonrpc":"2.0","id":7,"method":"x","params":{"p":"'));
    let peak = 0;
    for (let i = 0; i < 17 * 16; i++) {
      expect(framer.push(chunk)).toEqual([]);
      peak = Math.max(peak, framer.buffered);
    }
    const frames = framer.push(Buffer.from('"}}\n{"a":1}\n'));
    expect(peak).toBeLessThanOrEqual(limit);
    expect(frames[0]!.kind).toBe('oversize');
    expect(frames[0]!.kind === 'oversize' && frames[0]!.head.toString().startsWith('{"jsonrpc":"2.0","id":7')).toBe(true);
    expect(frames[1]).toEqual({ kind: 'line', bytes: Buffer.from('{"a":1}') });
    expect(framer.buffered).toBe(0);
  });

  it('accepts a line of exactly the limit and rejects one byte more', () => {
    const framer = new LineFramer(10);
    const [exact, over] = framer.push(Buffer.from('0123456789\n0123456789A\n'));
    expect(exact).toEqual({ kind: 'line', bytes: Buffer.from('0123456789') });
    expect(over!.kind).toBe('oversize');
    expect(over!.kind === 'oversize' && over!.size).toBe(11);
  });
});
