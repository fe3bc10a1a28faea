// A fixed-capacity byte ring holding the most recent bytes of a stream, addressed by stream
// offset. Flow: push(bytes) copies into one buffer, which starts small and doubles up to the
// capacity as bytes come (most commands print little: a session must not cost its full capacity
// up front); read(from, to) copies out a range that is still held. Used for the pending preview,
// the kept tail of the stream and the Liveboard's tail.

// The first buffer's size: a short command's whole output, without a pooled slab behind it.
const INITIAL_BYTES = 512;

export class Ring {
  private buf: Buffer;
  private end = 0; // next write position in buf
  private size = 0;
  private streamEnd: number; // stream offset just past the last byte held

  constructor(
    readonly capacity: number,
    startOffset = 0,
  ) {
    this.buf = Buffer.allocUnsafeSlow(Math.min(capacity, INITIAL_BYTES));
    this.streamEnd = startOffset;
  }

  // Stream offset of the oldest byte still held.
  get from(): number {
    return this.streamEnd - this.size;
  }

  get to(): number {
    return this.streamEnd;
  }

  // Bytes of buffer currently allocated (at most the capacity).
  get allocated(): number {
    return this.buf.length;
  }

  push(bytes: Uint8Array): void {
    const cap = this.capacity;
    this.streamEnd += bytes.length;
    if (bytes.length >= cap) {
      if (this.buf.length < cap) this.buf = Buffer.allocUnsafeSlow(cap);
      this.buf.set(bytes.subarray(bytes.length - cap));
      this.end = 0;
      this.size = cap;
      return;
    }
    if (this.size + bytes.length > this.buf.length && this.buf.length < cap) this.grow(this.size + bytes.length);
    const length = this.buf.length;
    const first = length - this.end;
    if (bytes.length <= first) {
      this.buf.set(bytes, this.end); // the common case: no view objects (about 180 bytes of heap each)
    } else {
      this.buf.set(bytes.subarray(0, first), this.end);
      this.buf.set(bytes.subarray(first), 0);
    }
    this.end = (this.end + bytes.length) % length;
    this.size = Math.min(length, this.size + bytes.length);
  }

  // A buffer of at least `needed` bytes (doubling, at most the capacity), holding what is held
  // from its start.
  private grow(needed: number): void {
    const held = this.read(this.from);
    this.buf = Buffer.allocUnsafeSlow(Math.min(this.capacity, Math.max(needed, this.buf.length * 2)));
    this.buf.set(held);
    this.end = held.length % this.buf.length;
  }

  // Stream bytes [from, to), clamped to what is held, as a fresh Buffer.
  read(from: number, to = this.streamEnd): Buffer {
    const start = Math.max(from, this.from);
    const stop = Math.min(to, this.streamEnd);
    if (stop <= start) return Buffer.alloc(0);
    const n = stop - start;
    const back = this.streamEnd - start; // bytes from start to the newest byte
    const length = this.buf.length;
    const at = (this.end - back + length * 2) % length;
    if (at + n <= length) return Buffer.from(this.buf.subarray(at, at + n));
    return Buffer.concat([this.buf.subarray(at), this.buf.subarray(0, n - (length - at))]);
  }
}
