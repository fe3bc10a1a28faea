// A fixed-capacity byte ring holding the most recent bytes of a stream, addressed by stream
// offset. Flow: push(bytes) copies into one preallocated buffer; read(from, to) copies out a
// range that is still held. Used for the pending preview and for the kept tail of the stream.

export class Ring {
  private readonly buf: Buffer;
  private end = 0; // next write position in buf
  private size = 0;
  private streamEnd: number; // stream offset just past the last byte held

  constructor(
    readonly capacity: number,
    startOffset = 0,
  ) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.streamEnd = startOffset;
  }

  // Stream offset of the oldest byte still held.
  get from(): number {
    return this.streamEnd - this.size;
  }

  get to(): number {
    return this.streamEnd;
  }

  push(bytes: Uint8Array): void {
    const cap = this.capacity;
    this.streamEnd += bytes.length;
    if (bytes.length >= cap) {
      this.buf.set(bytes.subarray(bytes.length - cap));
      this.end = 0;
      this.size = cap;
      return;
    }
    const first = cap - this.end;
    if (bytes.length <= first) {
      this.buf.set(bytes, this.end); // the common case: no view objects (about 180 bytes of heap each)
    } else {
      this.buf.set(bytes.subarray(0, first), this.end);
      this.buf.set(bytes.subarray(first), 0);
    }
    this.end = (this.end + bytes.length) % cap;
    this.size = Math.min(cap, this.size + bytes.length);
  }

  // Stream bytes [from, to), clamped to what is held, as a fresh Buffer.
  read(from: number, to = this.streamEnd): Buffer {
    const start = Math.max(from, this.from);
    const stop = Math.min(to, this.streamEnd);
    if (stop <= start) return Buffer.alloc(0);
    const n = stop - start;
    const back = this.streamEnd - start; // bytes from start to the newest byte
    const at = (this.end - back + this.capacity * 2) % this.capacity;
    if (at + n <= this.capacity) return Buffer.from(this.buf.subarray(at, at + n));
    return Buffer.concat([this.buf.subarray(at), this.buf.subarray(0, n - (this.capacity - at))]);
  }
}
