// The byte ring: after any sequence of pushes it holds exactly the last `capacity` bytes of the
// stream, addressed by stream offset, whether a push fits before the wrap, straddles it, or is
// larger than the ring.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ring } from '../../src/exec/ring.js';

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
});
