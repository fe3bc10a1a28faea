import type { SpillSink } from '../../src/exec/output/buffer.js';

// An in-memory spill sink with the same cap rule as the file one; the tail file is a Buffer.
export class MemorySink implements SpillSink {
  readonly path = '/memory/spill.txt';
  error: string | undefined;
  tailError: string | undefined;
  tailPath: string | undefined;
  tailFile: Buffer | undefined;
  parts: Buffer[] = [];
  private keptBytes = 0;
  private offered = 0;
  constructor(readonly capBytes: number) {}
  get truncated() {
    return this.offered > this.capBytes;
  }
  get kept() {
    return this.keptBytes;
  }
  write(bytes: Uint8Array) {
    this.offered += bytes.length;
    const room = this.capBytes - this.keptBytes;
    const slice = Buffer.from(bytes.subarray(0, Math.max(0, room)));
    this.parts.push(slice);
    this.keptBytes += slice.length;
  }
  read(offset: number, length: number) {
    return Buffer.from(this.file.subarray(offset, offset + length));
  }
  saveTail(bytes: Uint8Array) {
    this.tailFile = Buffer.from(bytes);
    this.tailPath = '/memory/spill.tail.txt';
  }
  markEnded() {}
  takeRemovedOthers() {
    return [];
  }
  close() {}
  get file() {
    return Buffer.concat(this.parts);
  }
}

// The stream cut at the given points (taken modulo its length), in order.
export function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(at, point));
    at = point;
  }
  chunks.push(bytes.subarray(at));
  return chunks;
}
