// The per-session output buffer: clean (ANSI-stripped) bytes in, bounded views out.
// Flow: push(bytes) -> counters -> pending ring (what the next result shows) and, once the
// stream outgrows the inline limit, the spill file (whole stream from byte 0, up to its cap).
// Memory per session is bounded by about twice the inline limit, whatever the stream's size.

import { countInto, firstCharBoundary, incompleteTailLength, type StreamCounts } from './utf8.js';

const LF = 0x0a;

export interface OutputLimits {
  // Output beyond this many bytes in one session's stream moves the stream to a spill file.
  inlineBytes: number;
  // Once spilled, a result shows at most this many bytes of the latest output.
  previewBytes: number;
}

// Where a spilled stream goes: see spill.ts. It is offered every byte of the stream and keeps
// the first capBytes; `truncated` turns true once it was offered more. `write` never throws:
// failures land in `error`.
export interface SpillSink {
  readonly path: string | undefined;
  readonly error: string | undefined;
  readonly truncated: boolean;
  write(bytes: Uint8Array): void;
  close(): void;
}

export interface SpillView {
  file: string | undefined;
  chars: number;
  lines: number;
  truncated: boolean;
  error: string | undefined;
}

export interface OutputView {
  text: string;
  spill: SpillView | undefined;
}

// A fixed-capacity byte ring holding the most recent bytes.
class Ring {
  private readonly buf: Buffer;
  private end = 0; // next write position
  private size = 0;

  constructor(readonly capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  push(bytes: Uint8Array): void {
    const cap = this.capacity;
    if (bytes.length >= cap) {
      this.buf.set(bytes.subarray(bytes.length - cap));
      this.end = 0;
      this.size = cap;
      return;
    }
    const first = Math.min(bytes.length, cap - this.end);
    this.buf.set(bytes.subarray(0, first), this.end);
    this.buf.set(bytes.subarray(first), 0);
    this.end = (this.end + bytes.length) % cap;
    this.size = Math.min(cap, this.size + bytes.length);
  }

  // The last n bytes (n <= size), as a fresh Buffer.
  last(n: number): Buffer {
    const start = (this.end - n + this.capacity) % this.capacity;
    if (start + n <= this.capacity) return Buffer.from(this.buf.subarray(start, start + n));
    return Buffer.concat([this.buf.subarray(start), this.buf.subarray(0, this.end)]);
  }
}

export class OutputBuffer {
  private readonly counts: StreamCounts = { chars: 0, newlines: 0 };
  private totalBytes = 0;
  private lastByte = -1;
  private readonly pending: Ring;
  private pendingBytes = 0; // bytes since the last take; may exceed the ring's capacity
  private head: Buffer[] | undefined = []; // the whole stream, until it spills
  private spill: SpillSink | undefined;

  constructor(
    private readonly limits: OutputLimits,
    private readonly openSpill: () => SpillSink,
  ) {
    this.pending = new Ring(Math.max(limits.inlineBytes, limits.previewBytes) + 4);
  }

  get bytes(): number {
    return this.totalBytes;
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    countInto(this.counts, bytes);
    this.totalBytes += bytes.length;
    this.lastByte = bytes[bytes.length - 1]!;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.head) {
      this.head.push(Buffer.from(bytes));
      if (this.totalBytes > this.limits.inlineBytes) this.startSpill();
    } else {
      this.spill!.write(bytes);
    }
  }

  private startSpill(): void {
    const sink = this.openSpill();
    for (const chunk of this.head!) sink.write(chunk);
    this.head = undefined;
    this.spill = sink;
  }

  // What a result shows now: the output since the previous take (or its tail, once spilled).
  // A character split across reads is held back until its last byte arrives, unless `final`.
  take(final: boolean): OutputView {
    const available = Math.min(this.pendingBytes, this.pending.capacity);
    let visible = this.pending.last(available);
    const heldBack = final ? 0 : incompleteTailLength(visible);
    if (heldBack > 0) visible = visible.subarray(0, visible.length - heldBack);
    this.pendingBytes = heldBack;
    if (this.spill) {
      if (visible.length > this.limits.previewBytes) {
        visible = visible.subarray(visible.length - this.limits.previewBytes);
        visible = visible.subarray(firstCharBoundary(visible));
      }
      if (final) this.spill.close();
    }
    return { text: visible.toString('utf8'), spill: this.spill && this.spillView(this.spill) };
  }

  private spillView(sink: SpillSink): SpillView {
    return {
      file: sink.path,
      chars: this.counts.chars,
      lines: this.counts.newlines + (this.totalBytes > 0 && this.lastByte !== LF ? 1 : 0),
      truncated: sink.truncated,
      error: sink.error,
    };
  }

  close(): void {
    this.spill?.close();
  }
}
