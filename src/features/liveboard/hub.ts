// The live output of every running session, shared by all open pages: one control-socket tail per
// session (from whichever zodexd owns it), its recent text for pages that open later, and new
// pieces broadcast every FLUSH_MS. Sessions come from the feed; a session no longer listed is dropped.

import type { SessionRow } from '../store/index.js';
import { controlSocketPath } from './paths.js';
import { controlStream, type ControlReply, type ControlRequest } from './protocol.js';
import { keepTail, PendingTail, type TailEnd } from './tail.js';

export const FLUSH_MS = 100; // pieces of output are sent to pages at most this often
export const RETRY_MS = 3_000; // a session whose zodexd could not be reached is tried again after this

// One message to pages about one session's output.
export interface TailMessage {
  sessionId: string;
  text: string;
  replace?: true; // `text` is the whole recent output, not a piece to append
  gap?: true; // output was skipped before `text` (the reader fell behind)
  end?: TailEnd;
  error?: string; // the output cannot be shown, and why
}

export type StreamOpener = (socketPath: string, request: ControlRequest, onReply: (reply: ControlReply) => void, onClose: () => void) => () => void;

interface Entry {
  row: SessionRow;
  text: string;
  pending: PendingTail;
  end: TailEnd | undefined;
  error: string | undefined;
  cancel: (() => void) | undefined;
  retry: NodeJS.Timeout | undefined;
}

export class TailHub {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(message: TailMessage) => void>();
  private flushTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly stateDir: string,
    private readonly open: StreamOpener = controlStream,
    private readonly flushMs = FLUSH_MS,
  ) {}

  subscribe(listener: (message: TailMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // What a page that opens now needs: each listed session's recent output.
  current(): TailMessage[] {
    return [...this.entries.entries()].map(([sessionId, entry]) => ({
      sessionId,
      text: entry.text,
      replace: true,
      ...(entry.end ? { end: entry.end } : {}),
      ...(entry.error !== undefined ? { error: entry.error } : {}),
    }));
  }

  // The sessions the pages list: running ones get a tail; unlisted ones are forgotten.
  sync(sessions: readonly SessionRow[]): void {
    if (this.closed) return;
    const listed = new Map(sessions.map((row) => [row.sessionId, row]));
    for (const [sessionId, entry] of this.entries) {
      if (!listed.has(sessionId)) this.drop(sessionId, entry);
    }
    for (const row of sessions) {
      const entry = this.entries.get(row.sessionId);
      if (entry) entry.row = row;
      else if (row.state === 'running') this.follow(row);
    }
  }

  private follow(row: SessionRow): void {
    const entry: Entry = { row, text: '', pending: new PendingTail(), end: undefined, error: undefined, cancel: undefined, retry: undefined };
    this.entries.set(row.sessionId, entry);
    this.connect(row.sessionId, entry);
  }

  private connect(sessionId: string, entry: Entry): void {
    entry.error = undefined; // a new attempt: a close without an answer is a new failure
    let socketPath: string;
    try {
      socketPath = controlSocketPath(this.stateDir, entry.row.serverId);
    } catch (error) {
      this.fail(sessionId, entry, (error as Error).message, false);
      return;
    }
    entry.cancel = this.open(
      socketPath,
      { version: 1, op: 'tail', sessionId },
      (reply) => this.receive(sessionId, entry, reply),
      () => {
        entry.cancel = undefined;
        if (this.entries.get(sessionId) !== entry || entry.end || entry.error !== undefined) return;
        // Closed without an end: the zodexd went away, or the session is unknown there.
        this.fail(sessionId, entry, 'the connection to its zodexd closed', true);
      },
    );
  }

  private receive(sessionId: string, entry: Entry, reply: ControlReply): void {
    if (this.entries.get(sessionId) !== entry) return;
    if (!reply.ok) {
      this.fail(sessionId, entry, reply.error.message, reply.error.code === 'UNREACHABLE');
      return;
    }
    if (reply.event === 'output') {
      if (reply.replace) {
        entry.text = keepTail(reply.text);
        entry.pending.take();
        this.broadcast({ sessionId, text: entry.text, replace: true });
        return;
      }
      entry.text = keepTail(entry.text + reply.text);
      if (reply.gap) entry.pending.markGap();
      entry.pending.add(reply.text);
      this.scheduleFlush();
    } else if (reply.event === 'end') {
      entry.end = { exitCode: reply.exitCode, reason: reply.reason };
      this.flushEntry(sessionId, entry);
      this.broadcast({ sessionId, text: '', end: entry.end });
    }
  }

  // The error is shown on the page; while the session is still listed as running, try again.
  private fail(sessionId: string, entry: Entry, message: string, retry: boolean): void {
    entry.error = message;
    entry.cancel?.();
    entry.cancel = undefined;
    this.broadcast({ sessionId, text: '', error: message });
    if (!retry || this.closed) return;
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      if (this.entries.get(sessionId) === entry && entry.row.state === 'running' && !entry.end) this.connect(sessionId, entry);
    }, RETRY_MS);
    entry.retry.unref();
  }

  private drop(sessionId: string, entry: Entry): void {
    this.entries.delete(sessionId);
    clearTimeout(entry.retry);
    entry.cancel?.();
  }

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      for (const [sessionId, entry] of this.entries) this.flushEntry(sessionId, entry);
    }, this.flushMs);
  }

  private flushEntry(sessionId: string, entry: Entry): void {
    if (entry.pending.isEmpty) return;
    const { text, gap } = entry.pending.take();
    this.broadcast({ sessionId, text, ...(gap ? { gap: true as const } : {}) });
  }

  private broadcast(message: TailMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.flushTimer);
    for (const [sessionId, entry] of this.entries) this.drop(sessionId, entry);
    this.listeners.clear();
  }
}
