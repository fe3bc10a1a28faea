// The recent output of each session of this zodexd, for Liveboard tails: the last TAIL_MAX_BYTES
// of clean output, kept as bytes (nothing is decoded while nobody watches), decoded per reader with
// its own streaming decoder (a UTF-8 character split across PTY reads arrives whole), plus live
// readers until the session ends.
// Flow: engine start -> TailRings.track(session) -> session.onOutput -> TailRing.push -> readers.

import { TextDecoder } from 'node:util';
import { Ring } from '../../exec/output/ring.js';
import { firstCharBoundary } from '../../exec/output/utf8.js';

export const TAIL_MAX_BYTES = 16 * 1024; // a few screens: enough to see what a command is doing
export const TAIL_MAX_CHARS = TAIL_MAX_BYTES; // what readers keep of the decoded text
// An ended session's tail stays readable this long, so a page that looks late still sees the end.
export const TAIL_RETENTION_MS = 60_000;

export interface TailEnd {
  exitCode: number | null;
  reason: string | null; // exit | timeout | killed
}

export type TailEvent = { text: string } | { end: TailEnd };

// The last `max` UTF-16 units of `text`, never starting with the second half of a surrogate pair.
export function keepTail(text: string, max = TAIL_MAX_CHARS): string {
  if (text.length <= max) return text;
  let start = text.length - max;
  const unit = text.charCodeAt(start);
  if (unit >= 0xdc00 && unit <= 0xdfff) start += 1;
  return text.slice(start);
}

interface Reader {
  decoder: TextDecoder;
  listener: (event: TailEvent) => void;
}

export class TailRing {
  private readonly bytes = new Ring(TAIL_MAX_BYTES); // a copy: pushed bytes may be a reused read buffer
  private ended: TailEnd | undefined;
  private readonly readers = new Set<Reader>();

  push(bytes: Uint8Array): void {
    if (bytes.length === 0 || this.ended) return;
    this.bytes.push(bytes);
    for (const reader of this.readers) {
      const text = reader.decoder.decode(bytes, { stream: true });
      if (text !== '') reader.listener({ text });
    }
  }

  end(end: TailEnd): void {
    if (this.ended) return;
    this.ended = end;
    for (const reader of this.readers) {
      const text = reader.decoder.decode();
      if (text !== '') reader.listener({ text });
      reader.listener({ end });
    }
    this.readers.clear();
  }

  // The last TAIL_MAX_BYTES or so, starting on a character boundary (older bytes were dropped
  // when the ring does not hold the stream from its start).
  private recentBytes(): Uint8Array {
    const tail = this.bytes.read(this.bytes.from);
    return this.bytes.from > 0 ? tail.subarray(firstCharBoundary(tail)) : tail;
  }

  // The recent output and how the session ended (if it did); until then, every new piece and
  // the end go to `listener`.
  subscribe(listener: (event: TailEvent) => void): { recent: string; ended: TailEnd | undefined; unsubscribe: () => void } {
    const reader: Reader = { decoder: new TextDecoder(), listener };
    let recent = reader.decoder.decode(this.recentBytes(), { stream: !this.ended });
    if (!this.ended) this.readers.add(reader);
    else recent = recent.replace(/\uFFFD$/, ''); // an incomplete last character never completes
    return { recent, ended: this.ended, unsubscribe: () => this.readers.delete(reader) };
  }
}

// What TailRings needs of a session (exec/session.ts's ExecSession, or a fake in tests).
export interface TailSource {
  readonly id: string;
  readonly end: { exitCode: number; reason: string } | undefined;
  onOutput(listener: (bytes: Uint8Array) => void): () => void;
  waitForEnd(): Promise<void>;
}

export class TailRings {
  private readonly rings = new Map<string, TailRing>();

  constructor(private readonly retentionMs = TAIL_RETENTION_MS) {}

  // Called as the session starts, before any output can arrive.
  track(session: TailSource): void {
    const ring = new TailRing();
    this.rings.set(session.id, ring);
    const stop = session.onOutput((bytes) => ring.push(bytes));
    void session.waitForEnd().then(() => {
      stop();
      ring.end({ exitCode: session.end?.exitCode ?? null, reason: session.end?.reason ?? null });
      this.forgetLater(session.id, ring);
    });
  }

  // The retention timer holds the id and the ring only, never the session (a closure made inside
  // track() would keep its whole scope, the session with it): an ended session, its output buffer
  // and terminal must be free to go once its handle is retired.
  private forgetLater(id: string, ring: TailRing): void {
    setTimeout(() => {
      if (this.rings.get(id) === ring) this.rings.delete(id);
    }, this.retentionMs).unref();
  }

  get(sessionId: string): TailRing | undefined {
    return this.rings.get(sessionId);
  }
}

// Output waiting for a reader that is slower than the command: pieces are joined, and once more
// than twice TAIL_MAX_CHARS wait, only the latest TAIL_MAX_CHARS are kept and `gap` says so.
export class PendingTail {
  private text = '';
  private gap = false;

  get isEmpty(): boolean {
    return this.text === '' && !this.gap;
  }

  add(text: string): void {
    this.text += text;
    if (this.text.length > 2 * TAIL_MAX_CHARS) {
      this.text = keepTail(this.text);
      this.gap = true;
    }
  }

  // Output before what comes next was lost upstream.
  markGap(): void {
    this.gap = true;
  }

  take(): { text: string; gap: boolean } {
    const taken = { text: this.text, gap: this.gap };
    this.text = '';
    this.gap = false;
    return taken;
  }
}
