// Progress bars collapsed: a line rewritten with "\r" shows only its last state.
// Rule: a line (bytes up to and including "\n") becomes its last non-empty "\r"-separated
// segment, plus its "\n"; newlines and everything else pass through. A pure function of the
// bytes, so it cannot depend on how they were read; text without "\r" is returned unchanged.
// headOf/tailOf cut a collapsed view of at most `budget` bytes from either end of a window and
// say which raw bytes it covers, so the bytes between two views can be named exactly.

import { firstCharBoundary, incompleteTailLength } from './utf8.js';

const CR = 0x0d;
const LF = 0x0a;

// [start, end) of the last non-empty segment of raw[lineStart, lineEnd) ("\n" excluded).
function lastSegment(raw: Uint8Array, lineStart: number, lineEnd: number): [number, number] {
  let end = lineEnd;
  for (;;) {
    const cr = end > lineStart ? raw.lastIndexOf(CR, end - 1) : -1;
    if (cr < lineStart) return [lineStart, end];
    if (cr + 1 < end) return [cr + 1, end];
    end = cr; // an empty segment (a trailing or doubled "\r"): look further back
  }
}

export function collapse(raw: Uint8Array): Uint8Array {
  if (raw.indexOf(CR) === -1) return raw;
  const out = Buffer.allocUnsafe(raw.length);
  let n = 0;
  let lineStart = 0;
  while (lineStart < raw.length) {
    const nl = raw.indexOf(LF, lineStart);
    const lineEnd = nl === -1 ? raw.length : nl;
    const [s, e] = lastSegment(raw, lineStart, lineEnd);
    out.set(raw.subarray(s, e), n);
    n += e - s;
    if (nl === -1) break;
    out[n++] = LF;
    lineStart = nl + 1;
  }
  return out.subarray(0, n);
}

// Collapses a stream read in pieces, with the same result as collapse() of their concatenation:
// complete lines go out at once; of the last, incomplete line only what can still show is kept.
export class PieceCollapser {
  private readonly out: Uint8Array[] = [];
  private carry: Uint8Array = new Uint8Array(0);
  size = 0; // bytes collapsed so far, the carried line included

  push(piece: Uint8Array): void {
    const raw = this.carry.length > 0 ? Buffer.concat([this.carry, piece]) : piece;
    const lastNl = raw.lastIndexOf(LF);
    const done = lastNl === -1 ? new Uint8Array(0) : collapse(raw.subarray(0, lastNl + 1));
    if (done.length > 0) this.out.push(Buffer.from(done));
    const rest = raw.subarray(lastNl + 1);
    const [s, e] = lastSegment(rest, 0, rest.length);
    // "abc\r": a later segment would replace abc, an empty one would not
    this.carry = Buffer.concat([rest.subarray(s, e), rest.length > 0 && rest[rest.length - 1] === CR && e < rest.length ? Buffer.of(CR) : Buffer.alloc(0)]);
    this.size = this.out.reduce((sum, part) => sum + part.length, 0) + (e - s);
  }

  end(): Buffer {
    return Buffer.concat([...this.out, collapse(this.carry)]);
  }
}

export interface HeadCut {
  bytes: Buffer; // collapsed, at most budget bytes, whole characters
  rawEnd: number; // raw[0, rawEnd) is what it shows
}

// The first whole lines of raw that fit the budget; a first line longer than the budget is cut.
export function headOf(raw: Uint8Array, budget: number): HeadCut {
  const parts: Uint8Array[] = [];
  let used = 0;
  let lineStart = 0;
  while (lineStart < raw.length) {
    const nl = raw.indexOf(LF, lineStart);
    const lineEnd = nl === -1 ? raw.length : nl;
    const [s, e] = lastSegment(raw, lineStart, lineEnd);
    const size = e - s + (nl === -1 ? 0 : 1);
    if (used + size > budget) {
      if (used > 0) break;
      const seg = raw.subarray(s, s + budget);
      const keep = seg.length - incompleteTailLength(seg);
      parts.push(seg.subarray(0, keep));
      return { bytes: Buffer.concat(parts), rawEnd: s + keep };
    }
    if (nl === -1 || e === nl) parts.push(raw.subarray(s, nl === -1 ? e : nl + 1));
    else parts.push(raw.subarray(s, e), Buffer.of(LF));
    used += size;
    lineStart = nl === -1 ? raw.length : nl + 1;
  }
  return { bytes: Buffer.concat(parts), rawEnd: lineStart };
}

export interface TailCut {
  bytes: Buffer;
  rawStart: number; // raw[rawStart, length) is what it shows
}

// The last whole lines of raw[floor, length) that fit the budget; a last line longer than the
// budget keeps its end. raw[floor - 1], when given, only tells whether raw[floor] starts a line.
export function tailOf(raw: Uint8Array, budget: number, floor = 0): TailCut {
  const parts: Uint8Array[] = [];
  let used = 0;
  let end = raw.length;
  while (end > floor) {
    const hasNl = raw[end - 1] === LF;
    const contentEnd = hasNl ? end - 1 : end;
    const prev = contentEnd > 0 ? raw.lastIndexOf(LF, contentEnd - 1) : -1;
    const lineStart = Math.max(prev + 1, floor);
    const [s, e] = lastSegment(raw, lineStart, contentEnd);
    const size = e - s + (hasNl ? 1 : 0);
    if (used + size > budget) {
      if (used > 0) break;
      const room = Math.max(0, budget - (hasNl ? 1 : 0));
      let cut = e - Math.min(room, e - s);
      cut += firstCharBoundary(raw.subarray(cut, e));
      parts.unshift(hasNl ? Buffer.concat([raw.subarray(cut, e), Buffer.of(LF)]) : raw.subarray(cut, e));
      return { bytes: Buffer.concat(parts), rawStart: cut };
    }
    parts.unshift(hasNl ? Buffer.concat([raw.subarray(s, e), Buffer.of(LF)]) : raw.subarray(s, e));
    used += size;
    end = lineStart;
  }
  return { bytes: Buffer.concat(parts), rawStart: end };
}
