// The per-session output buffer: decoded (ANSI-stripped) bytes in, bounded views out.
// Flow: push(bytes) -> counters, the pending ring (the latest bytes), the whole stream in memory
// until it outgrows the inline limit, then the spill file (first capBytes) and, past that cap,
// the tail ring (last tailBytes, saved to the tail file at each report). take() shows the bytes
// since the previous result, "\r"-collapsed: whole if they fit, else head + gap line + tail.
// Offsets count bytes of this decoded stream, the same bytes the spill file holds.

import { ZodexError } from '../../errors.js';
import { collapse, headOf, PieceCollapser, tailOf } from './collapse.js';
import { describeGap } from './gap.js';
import { Ring } from './ring.js';
import { countInto, countNewlines, incompleteTailLength, type StreamCounts } from './utf8.js';

const LF = 0x0a;
const CR = 0x0d;
// Raw bytes kept from the start of each result's window, and at least this much of the latest
// bytes, so that a "\r"-redrawn progress bar still collapses into a preview with context.
const HEAD_WINDOW_BYTES = 64 * 1024;
const MIN_PENDING_BYTES = 64 * 1024;
const CHECKPOINTS = 64;
const COUNT_CHUNK = 1 << 20;

export interface OutputLimits {
  // Output beyond this many bytes in one session's stream moves the stream to a spill file.
  inlineBytes: number;
  // Once spilled, a result shows at most this many bytes of what is new: head and tail together.
  previewBytes: number;
  // Of previewBytes, how much goes to output_head when what is new does not fit.
  headBytes: number;
  // Past the spill file's cap, this many last bytes of the stream stay readable (tail file).
  tailBytes: number;
}

// Where a spilled stream goes: see spill.ts. It is offered every byte of the stream and keeps
// the first `kept` (up to its cap, or what the folder's cap left); `truncated` turns true once it
// was offered more. `write` and `saveTail` never throw: failures land in `error` and `tailError`.
// Once the command ended, its files may be removed to make room for others (`path` is then
// undefined, `kept` 0 and `error` says why).
export interface SpillSink {
  readonly path: string | undefined;
  readonly error: string | undefined;
  readonly truncated: boolean;
  readonly kept: number;
  readonly capBytes: number | undefined;
  readonly tailPath: string | undefined;
  readonly tailError: string | undefined;
  write(bytes: Uint8Array): void;
  read(offset: number, length: number): Buffer;
  saveTail(bytes: Uint8Array): void;
  markEnded(): void;
  // The spill files of ended commands removed to make room for this one since the last call.
  takeRemovedOthers(): string[];
  close(): void;
}

export interface SpillView {
  file: string | undefined;
  chars: number;
  lines: number;
  truncated: boolean;
  error: string | undefined;
  tailFile: string | undefined; // saved at this report: stream bytes [tailOffset, offset)
  tailOffset: number | undefined;
  removed: string[]; // other commands' spill files removed to make room for this one since the last view
}

export interface OutputView {
  text: string;
  head: string | undefined; // only when what is new did not fit
  omitted: string | undefined; // the line naming what lies between head and text
  start: number; // the stream offset this view begins at
  offset: number; // stream bytes delivered up to and including this view
  gap: [number, number] | undefined; // stream offsets [from, to) between head and text
  spill: SpillView | undefined;
}

export class OutputBuffer {
  private readonly counts: StreamCounts = { chars: 0, newlines: 0 };
  private total = 0;
  private lastByte = -1;
  private readonly pending: Ring; // the latest bytes; one more than shown, to see a line start
  private whole: Buffer[] | undefined = []; // the whole stream, until it spills
  private spill: SpillSink | undefined;
  private tail: Ring | undefined; // bytes past what the spill file kept
  private tailSaved = -1; // stream offsets the tail file holds: [tailSavedFrom, tailSaved)
  private tailSavedFrom = 0;
  private windowStart = 0; // where the next result's output begins
  private windowNewlines = 0; // newlines before windowStart
  private windowHead: Buffer | undefined; // raw bytes from windowStart, once spilled
  private windowHeadLength = 0;
  private windowHasCr = false; // a "\r" since windowStart: what is new may collapse to little
  private readonly checkpoints = new Map<number, number>(); // delivered offset -> newlines before

  constructor(
    private readonly limits: OutputLimits,
    private readonly openSpill: () => SpillSink,
  ) {
    this.pending = new Ring(Math.max(limits.inlineBytes, limits.previewBytes, MIN_PENDING_BYTES) + 1);
  }

  // Output the next result would show: bytes since the previous result.
  get hasUndelivered(): boolean {
    return this.total > this.windowStart;
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const at = this.total;
    countInto(this.counts, bytes);
    this.total += bytes.length;
    this.lastByte = bytes[bytes.length - 1]!;
    this.pending.push(bytes);
    if (!this.windowHasCr && bytes.indexOf(CR) !== -1) this.windowHasCr = true;
    if (this.windowHead && this.windowHeadLength < HEAD_WINDOW_BYTES) this.fillHead(bytes);
    if (this.whole) {
      this.whole.push(Buffer.from(bytes));
      if (this.total > this.limits.inlineBytes) this.startSpill();
    } else {
      this.toSpill(bytes, at);
    }
  }

  private fillHead(bytes: Uint8Array): void {
    const n = Math.min(bytes.length, HEAD_WINDOW_BYTES - this.windowHeadLength);
    this.windowHead!.set(bytes.subarray(0, n), this.windowHeadLength);
    this.windowHeadLength += n;
  }

  private startSpill(): void {
    const stream = Buffer.concat(this.whole!);
    this.whole = undefined;
    this.spill = this.openSpill();
    this.toSpill(stream, 0);
    this.windowHead = Buffer.allocUnsafe(HEAD_WINDOW_BYTES);
    this.windowHeadLength = 0;
    this.fillHead(stream.subarray(this.windowStart));
  }

  private toSpill(bytes: Uint8Array, at: number): void {
    const sink = this.spill!;
    sink.write(bytes); // keeps what fits under its cap (and counts the rest)
    const kept = sink.kept;
    if (kept >= at + bytes.length) return;
    const skip = Math.max(0, kept - at);
    this.tail ??= new Ring(this.limits.tailBytes, at + skip);
    this.tail.push(skip > 0 ? bytes.subarray(skip) : bytes);
  }

  // The next take delivers again from `offset` (a result's output_offset, or any byte offset;
  // one inside a multi-byte character starts at that character). Throws, changing nothing, for
  // an offset past the end or in bytes no longer held.
  rewind(offset: number): void {
    if (offset > this.total) {
      throw new ZodexError(
        'SINCE_OFFSET_AHEAD',
        `since_offset ${offset} is past the end of the stream (${this.total} bytes so far): pass the output_offset of an earlier result`,
      );
    }
    // stream bytes [lo, offset]: step back from the byte at offset over continuation bytes
    const lo = Math.max(0, offset - 3);
    const around = offset < this.total ? this.readKept(lo, offset - lo + 1) : Buffer.alloc(0);
    let start = offset;
    if (around.length === offset - lo + 1) {
      let i = offset - lo;
      while (i > 0 && (around[i]! & 0xc0) === 0x80) i--;
      start = lo + i;
    }
    const newlines = this.newlinesBefore(start);
    if (newlines === undefined) {
      const keptTo = this.spill?.kept ?? 0;
      const heldFrom = Math.min(this.tail?.from ?? this.total, this.pending.from);
      throw new ZodexError(
        'SINCE_OFFSET_NOT_RETAINED',
        `since_offset ${offset} lies in stream bytes ${keptTo}-${heldFrom - 1}, which were not kept (${keptTo > 0 ? `output_file holds bytes 0-${keptTo - 1}, ` : ''}` +
          `the tail bytes ${heldFrom}-${this.total - 1}): pass since_offset ${heldFrom} or more${keptTo > 0 ? `, or below ${keptTo}` : ''}`,
      );
    }
    this.windowStart = start;
    this.windowNewlines = newlines;
    this.windowHasCr = true; // not known: look
    if (this.windowHead) {
      this.windowHeadLength = 0;
      this.fillHead(this.readKept(start, HEAD_WINDOW_BYTES));
    }
  }

  // Up to `length` bytes of the stream from `offset`, from one place that still holds them.
  private readKept(offset: number, length: number): Buffer {
    if (this.whole) return Buffer.concat(this.whole).subarray(offset, offset + length);
    if (offset >= this.pending.from) return this.pending.read(offset, offset + length);
    if (this.tail && offset >= this.tail.from) return this.tail.read(offset, offset + length);
    if (this.spill && offset < this.spill.kept) return this.spill.read(offset, length);
    return Buffer.alloc(0);
  }

  // Newlines in stream bytes [0, offset), or undefined when those bytes are no longer held.
  private newlinesBefore(offset: number): number | undefined {
    const known = this.checkpoints.get(offset);
    if (known !== undefined) return known;
    if (offset === this.total) return this.counts.newlines;
    if (this.whole) return countNewlines(Buffer.concat(this.whole).subarray(0, offset));
    if (offset >= this.pending.from) return this.counts.newlines - countNewlines(this.pending.read(offset));
    if (this.tail && offset >= this.tail.from) return this.counts.newlines - countNewlines(this.tail.read(offset));
    if (!this.spill || offset > this.spill.kept) return undefined;
    let newlines = 0;
    for (let at = 0; at < offset; at += COUNT_CHUNK) {
      const chunk = this.spill.read(at, Math.min(COUNT_CHUNK, offset - at));
      if (chunk.length < Math.min(COUNT_CHUNK, offset - at)) return undefined;
      newlines += countNewlines(chunk);
    }
    return newlines;
  }

  // What a result shows now: the output since the previous take (or since a rewind).
  // A character split across reads is held back until its last byte arrives, unless `final`.
  take(final: boolean): OutputView {
    const last = this.pending.read(Math.max(this.pending.from, this.total - 3));
    const end = this.total - (final ? 0 : incompleteTailLength(last));
    const from = Math.min(this.windowStart, end);
    let text: Uint8Array;
    let head: string | undefined;
    let omitted: string | undefined;
    let gap: [number, number] | undefined;
    if (this.whole) {
      text = collapse(Buffer.concat(this.whole).subarray(from, end));
    } else {
      this.saveTail();
      const recent = from >= this.pending.from ? collapse(this.pending.read(from, end)) : undefined;
      const small = recent ?? (this.windowHasCr ? this.collapseRange(from, end, this.limits.previewBytes) : undefined);
      if (small && small.length <= this.limits.previewBytes) text = small;
      else ({ text, head, omitted, gap } = this.headAndTail(from, end));
    }
    this.windowStart = end;
    this.windowNewlines = this.counts.newlines; // held-back bytes are never newlines
    this.windowHasCr = false;
    this.checkpoints.set(end, this.windowNewlines);
    if (this.checkpoints.size > CHECKPOINTS) this.checkpoints.delete(this.checkpoints.keys().next().value!);
    if (this.windowHead) {
      this.windowHeadLength = 0;
      this.fillHead(this.pending.read(end));
    }
    if (final) this.spill?.close();
    const shown = Buffer.from(text.buffer, text.byteOffset, text.length).toString('utf8');
    return { text: shown, head, omitted, start: from, offset: end, gap, spill: this.spill && this.spillView(this.spill) };
  }

  // collapse() of stream bytes [from, end), if they are all still held and it fits the budget.
  private collapseRange(from: number, end: number, budget: number): Uint8Array | undefined {
    const collapser = new PieceCollapser();
    for (let at = from; at < end; ) {
      const piece = this.readKept(at, Math.min(COUNT_CHUNK, end - at));
      if (piece.length === 0) return undefined;
      collapser.push(piece);
      at += piece.length;
      if (collapser.size > budget) return undefined;
    }
    return collapser.end();
  }

  private headAndTail(from: number, end: number): Pick<OutputView, 'head' | 'omitted' | 'gap'> & { text: Uint8Array } {
    const { previewBytes, headBytes } = this.limits;
    let headRaw = this.windowHead!.subarray(0, Math.min(this.windowHeadLength, end - from));
    headRaw = headRaw.subarray(0, headRaw.length - incompleteTailLength(headRaw));
    const headCut = headOf(headRaw, headBytes);
    const headEnd = from + headCut.rawEnd;
    const floorAt = Math.max(headEnd, this.pending.from + 1);
    const tailRaw = this.pending.read(floorAt - 1, end);
    const tailCut = tailOf(tailRaw, previewBytes - headBytes, 1);
    const tailStart = floorAt - 1 + tailCut.rawStart;
    let omitted: string | undefined;
    if (tailStart > headEnd) {
      const before = this.windowNewlines + countNewlines(headRaw.subarray(0, headCut.rawEnd));
      const beforeTail = this.counts.newlines - countNewlines(tailRaw.subarray(tailCut.rawStart));
      const startsLine = tailCut.rawStart > 0 && tailRaw[tailCut.rawStart - 1] === LF;
      const sink = this.spill!;
      omitted = describeGap({
        from: headEnd,
        to: tailStart,
        firstLine: before + 1,
        lastLine: startsLine ? beforeTail : beforeTail + 1,
        file: sink.path,
        kept: sink.kept,
        capBytes: sink.capBytes,
        tailFile: sink.tailPath,
        tailFrom: this.tail?.from,
      });
    }
    const head = headCut.bytes.length > 0 ? headCut.bytes.toString('utf8') : undefined;
    return { text: tailCut.bytes, head, omitted, gap: omitted ? [headEnd, tailStart] : undefined };
  }

  // Past the cap, the tail file is rewritten at each report that has new bytes.
  private saveTail(): void {
    if (!this.tail || !this.spill || this.spill.path === undefined || this.tail.to === this.tailSaved) return;
    this.spill.saveTail(this.tail.read(this.tail.from));
    this.tailSaved = this.tail.to;
    this.tailSavedFrom = this.tail.from;
  }

  private spillView(sink: SpillSink): SpillView {
    const tailSaved = sink.tailPath !== undefined && this.tail !== undefined;
    return {
      file: sink.path,
      chars: this.counts.chars,
      lines: this.counts.newlines + (this.total > 0 && this.lastByte !== LF ? 1 : 0),
      truncated: sink.truncated,
      error: sink.error ?? sink.tailError,
      tailFile: tailSaved ? sink.tailPath : undefined,
      tailOffset: tailSaved ? this.tailSavedFrom : undefined,
      removed: sink.takeRemovedOthers(),
    };
  }

  // The command ended: no byte will come; its spill files may go first when others need room.
  ended(): void {
    this.spill?.markEnded();
  }

  close(): void {
    this.spill?.close();
  }
}
