// Streaming redaction of a session's decoded output (after AnsiStripper, before it fans out to the
// output buffer, spill and tail files and the Liveboard): every known secret value becomes
// `[REDACTED:NAME]`, also when it arrives split across reads.
// Flow: push(bytes) -> held bytes + bytes -> scan: at each position the longest value that starts
// there is replaced (leftmost-longest, so the result does not depend on how the stream was cut);
// the longest suffix that is a proper prefix of some value is held back for the next push, and
// nothing else; end() flushes what is held. Values are matched in their decoded form (stripped
// of escape sequences, "\r\n" as "\n"), the same bytes the stream carries.

import { redactionMark } from '../../secrets.js';
import { stripAnsi } from './ansi.js';

// What the engine needs to know of the secrets: their names and values, and a version that
// changes whenever they do (a value added while a command runs is redacted from then on).
export interface RedactionSource {
  readonly version: number;
  list(): readonly { readonly name: string; readonly value: string }[];
}

// The values of one version, compiled for scanning.
interface Needles {
  version: number;
  bytes: Buffer[]; // distinct decoded values
  marks: Buffer[]; // `[REDACTED:NAME]` for each
  // What is searched for: ANCHOR_BYTES of the value, at this offset in it (then the whole value is
  // compared). Native search looks for the first byte of what it searches and checks from there,
  // so a value that begins like the text around it (many x in a stream of x) makes it crawl; an
  // anchor that starts on the value's rarest byte does not, and is no slower on random tokens.
  anchors: Buffer[];
  anchorAt: number[];
  maxLength: number;
  // The values in byte order (those that start with a given text are next to each other), and
  // which bytes start one: the hold-back check looks only where such a byte is.
  sorted: Buffer[];
  starts: Uint8Array;
}

const ANCHOR_BYTES = 8;

// The offset of the ANCHOR_BYTES-long window of `value` whose first byte is the rarest in the
// value, then with the most distinct bytes (the last of equals).
function anchorOffset(value: Buffer): number {
  const counts = new Array<number>(256).fill(0);
  for (const byte of value) counts[byte]!++;
  let best = 0;
  let score = -Infinity;
  for (let at = 0; at + ANCHOR_BYTES <= value.length; at++) {
    const here = -counts[value[at]!]! * 256 + new Set(value.subarray(at, at + ANCHOR_BYTES)).size;
    if (here >= score) {
      score = here;
      best = at;
    }
  }
  return best;
}

const EMPTY = new Uint8Array(0);
const compiled = new WeakMap<RedactionSource, Needles>();

function needlesOf(source: RedactionSource): Needles {
  const cached = compiled.get(source);
  if (cached && cached.version === source.version) return cached;
  const seen = new Set<string>();
  const needles: Needles = { version: source.version, bytes: [], marks: [], anchors: [], anchorAt: [], maxLength: 0, sorted: [], starts: new Uint8Array(256) };
  for (const { name, value } of source.list()) {
    const decoded = stripAnsi(value);
    if (decoded === '' || seen.has(decoded)) continue;
    seen.add(decoded);
    const bytes = Buffer.from(decoded, 'utf8');
    const at = anchorOffset(bytes);
    needles.bytes.push(bytes);
    needles.marks.push(Buffer.from(redactionMark(name), 'utf8'));
    needles.anchors.push(bytes.subarray(at, at + ANCHOR_BYTES));
    needles.anchorAt.push(at);
    needles.maxLength = Math.max(needles.maxLength, bytes.length);
    needles.starts[bytes[0]!] = 1;
  }
  needles.sorted = [...needles.bytes].sort(Buffer.compare);
  compiled.set(source, needles);
  return needles;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

export class StreamRedactor {
  private held: Buffer = Buffer.alloc(0);

  constructor(private readonly source: RedactionSource) {}

  // Bytes held back: the end of the stream so far, which may still become a value.
  get holding(): number {
    return this.held.length;
  }

  // The bytes that can be shown now: `bytes` itself (or a view of it) when nothing is replaced or
  // held, else a new buffer. Valid until the next push, like AnsiStripper's result.
  push(bytes: Uint8Array): Uint8Array {
    const needles = needlesOf(this.source);
    if (this.held.length === 0 && needles.bytes.length === 0) return bytes;
    const data = this.held.length === 0 ? asBuffer(bytes) : Buffer.concat([this.held, bytes]);
    return this.scan(data, needles, false);
  }

  // What was held back (a possible start of a value that never came), at the end of the stream.
  end(): Uint8Array {
    if (this.held.length === 0) return EMPTY;
    return this.scan(this.held, needlesOf(this.source), true);
  }

  private scan(data: Buffer, needles: Needles, final: boolean): Uint8Array {
    const { bytes, marks } = needles;
    const n = data.length;
    const next = bytes.map((_, i) => occurrence(data, needles, i, 0));
    const pieces: Uint8Array[] = [];
    let p = 0;
    // The hold point from p, recomputed only once a replacement carried p past it (it is the
    // first such position at or after p, so it stays the same while p has not passed it).
    let hold = final ? -1 : this.holdPoint(data, 0, needles);
    for (;;) {
      // The first full occurrence at or after p, and at that position the longest value.
      let q = -1;
      let best = -1;
      for (let i = 0; i < bytes.length; i++) {
        if (next[i]! !== -1 && next[i]! < p) next[i] = occurrence(data, needles, i, p);
        const at = next[i]!;
        if (at === -1) continue;
        if (q === -1 || at < q || (at === q && bytes[i]!.length > bytes[best]!.length)) {
          q = at;
          best = i;
        }
      }
      if (hold !== -1 && hold < p) hold = this.holdPoint(data, p, needles);
      if (hold !== -1 && (q === -1 || hold <= q)) {
        this.held = Buffer.from(data.subarray(hold)); // a copy: data may be a reused read buffer
        if (hold > p) pieces.push(data.subarray(p, hold));
        break;
      }
      if (q === -1) {
        if (this.held.length > 0) this.held = Buffer.alloc(0);
        if (p === 0) return data; // nothing replaced, nothing held: the common case, no copy
        if (p < n) pieces.push(data.subarray(p));
        break;
      }
      if (q > p) pieces.push(data.subarray(p, q));
      pieces.push(marks[best]!);
      p = q + bytes[best]!.length;
    }
    if (pieces.length === 1) return pieces[0]!;
    return pieces.length === 0 ? EMPTY : Buffer.concat(pieces);
  }

  // The first position r >= p such that data[r..] is a proper prefix of some value (it may be the
  // start of that value, whose rest has not arrived), or -1. Only the last maxLength - 1 bytes
  // can be; the values that start with data[r..] follow the first value not below it in byte order.
  private holdPoint(data: Buffer, p: number, needles: Needles): number {
    const n = data.length;
    const { sorted, starts } = needles;
    for (let r = Math.max(p, n - needles.maxLength + 1); r < n; r++) {
      if (starts[data[r]!] === 0) continue;
      const end = data.subarray(r);
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (Buffer.compare(sorted[mid]!, end) < 0) lo = mid + 1;
        else hi = mid;
      }
      // sorted[lo] starts with `end` if any value does; if it is `end` itself, the next may be longer.
      for (let j = lo; j < sorted.length && j <= lo + 1; j++) {
        const value = sorted[j]!;
        if (value.length > end.length && value.compare(end, 0, end.length, 0, end.length) === 0) return r;
      }
    }
    return -1;
  }
}

// Where value i next occurs whole in data at or after `from`, or -1: its anchor is searched for,
// then the whole value compared around it.
function occurrence(data: Buffer, needles: Needles, i: number, from: number): number {
  const value = needles.bytes[i]!;
  const offset = needles.anchorAt[i]!;
  for (let at = data.indexOf(needles.anchors[i]!, from + offset); at !== -1; at = data.indexOf(needles.anchors[i]!, at + 1)) {
    const start = at - offset;
    if (start + value.length > data.length) return -1;
    if (data.compare(value, 0, value.length, start, start + value.length) === 0) return start;
  }
  return -1;
}
