// Newline-delimited framing for stdio, as a pure line buffer: bytes in (split anywhere) -> whole
// lines out. A line longer than the limit is never held whole: past the limit only its first
// HEAD_BYTES and last TAIL_BYTES are kept (to read its id), and it comes out as `oversize`.

export const HEAD_BYTES = 4096;
export const TAIL_BYTES = 512;

export type Frame =
  | { kind: 'line'; bytes: Buffer } // without its "\n" (and a "\r" before it)
  | { kind: 'oversize'; size: number; head: Buffer; tail: Buffer }; // size: bytes before the "\n"

export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0; // bytes of the pending line so far
  private skipping = false;
  private head: Buffer = Buffer.alloc(0);
  private tail: Buffer = Buffer.alloc(0);

  constructor(readonly limit: number) {}

  // Bytes this framer holds; never more than limit + HEAD_BYTES + TAIL_BYTES.
  get buffered(): number {
    return this.skipping ? this.head.length + this.tail.length : this.size;
  }

  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (end > start) this.take(chunk.subarray(start, end));
      if (newline === -1) break;
      frames.push(this.finish());
      start = newline + 1;
    }
    return frames;
  }

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.size += piece.length;
      if (this.head.length < HEAD_BYTES) this.head = firstBytes([this.head, piece], HEAD_BYTES);
      this.tail = lastBytes([this.tail, piece], TAIL_BYTES);
      return;
    }
    if (this.size + piece.length <= this.limit) {
      // Copied: a subarray would pin the whole chunk it came from.
      this.parts.push(Buffer.from(piece));
      this.size += piece.length;
      return;
    }
    const pending = [...this.parts, piece];
    this.head = firstBytes(pending, HEAD_BYTES);
    this.tail = lastBytes(pending, TAIL_BYTES);
    this.parts = [];
    this.size += piece.length;
    this.skipping = true;
  }

  private finish(): Frame {
    const frame: Frame = this.skipping
      ? { kind: 'oversize', size: this.size, head: this.head, tail: this.tail }
      : { kind: 'line', bytes: stripCr(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size)) };
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
    return frame;
  }
}

function stripCr(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, line.length - 1) : line;
}

function firstBytes(parts: Buffer[], count: number): Buffer {
  const out: Buffer[] = [];
  let have = 0;
  for (const part of parts) {
    if (have >= count) break;
    const slice = part.subarray(0, count - have);
    out.push(slice);
    have += slice.length;
  }
  return Buffer.from(Buffer.concat(out, have));
}

function lastBytes(parts: Buffer[], count: number): Buffer {
  const out: Buffer[] = [];
  let have = 0;
  for (let i = parts.length - 1; i >= 0 && have < count; i--) {
    const part = parts[i]!;
    const slice = part.subarray(Math.max(0, part.length - (count - have)));
    out.unshift(slice);
    have += slice.length;
  }
  return Buffer.from(Buffer.concat(out, have));
}
