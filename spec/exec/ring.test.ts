// The byte ring: after any sequence of pushes it holds exactly the last `capacity` bytes of the
// stream, addressed by stream offset, whether a push fits before the wrap, straddles it, or is
// larger than the ring; and its buffer grows with the stream, never past twice what it holds.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ring } from '../../src/exec/output/ring.js';

describe('Ring', () => {
  it('holds the last capacity bytes of the stream, readable by stream offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.nat(1000),
        fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 30 }),
        fc.nat(),
        fc.nat(),
        (capacity, start, pushes, a, b) => {
          const ring = new Ring(capacity, start);
          for (const bytes of pushes) ring.push(bytes);
          const stream = Buffer.concat(pushes);
          const held = stream.subarray(Math.max(0, stream.length - capacity));
          expect(ring.to).toBe(start + stream.length);
          expect(ring.from).toBe(ring.to - held.length);
          expect(ring.read(ring.from).equals(held)).toBe(true);
          const from = ring.from + (held.length === 0 ? 0 : a % held.length);
          const to = from + (b % (held.length + 1));
          expect(ring.read(from, to).equals(held.subarray(from - ring.from, to - ring.from))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('grows its buffer with the stream (across the wraps and doublings too), up to the capacity', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.array(fc.uint8Array({ maxLength: 1500 }), { maxLength: 20 }), (capacity, pushes) => {
        const ring = new Ring(capacity);
        const sizes: number[] = [];
        for (const bytes of pushes) {
          ring.push(bytes);
          sizes.push(ring.allocated);
        }
        const stream = Buffer.concat(pushes);
        expect(ring.read(ring.from).equals(stream.subarray(Math.max(0, stream.length - capacity)))).toBe(true);
        expect(ring.allocated).toBeLessThanOrEqual(Math.min(capacity, Math.max(512, 2 * stream.length)));
        expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
      }),
      { numRuns: 2000 },
    );
  });

  it('costs 512 bytes for a command that prints a line, not its 64 KiB capacity', () => {
    const ring = new Ring(64 * 1024 + 1);
    ring.push(Buffer.from('hello\n'));
    expect(ring.allocated).toBe(512);
  });
});
