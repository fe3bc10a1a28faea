// The open MCP sessions of HTTP (HttpSession, Mcp-Session-Id; not exec/session.ts's ExecSession), capped. Admitting a new one when the table is full
// closes idle conversations (no call in flight, no command running) oldest first; if none is
// idle, the caller answers 503. The idle sweep closes those unused for longer than the idle time.

import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Log } from '../../log.js';

export interface HttpSession {
  id: string;
  transport: StreamableHTTPServerTransport;
  lastActivity: number;
  inFlight: number;
  opening: boolean; // between its initialize request and the transport's session id
  principal: string; // who opened it: an OAuth grant id, else 'static' (the static token, or none); only it may use it
  close(): Promise<void>; // leaves the table synchronously
}

export class HttpSessionTable {
  private readonly table = new Map<string, HttpSession>();

  constructor(
    readonly cap: number,
    // Whether a conversation still owns a running command (then it is never evicted).
    private readonly hasRunningCommand: (id: string) => boolean,
    private readonly log: Log,
  ) {}

  get size(): number {
    return this.table.size;
  }

  get(id: string): HttpSession | undefined {
    const conversation = this.table.get(id);
    return conversation?.opening ? undefined : conversation;
  }

  values(): HttpSession[] {
    return [...this.table.values()];
  }

  add(conversation: HttpSession): void {
    this.table.set(conversation.id, conversation);
  }

  delete(id: string): void {
    this.table.delete(id);
  }

  private idle(conversation: HttpSession): boolean {
    return !conversation.opening && conversation.inFlight === 0 && !this.hasRunningCommand(conversation.id);
  }

  // Makes room for one more conversation; false when every open one is busy. Synchronous, so
  // concurrent initialize requests cannot overshoot the cap (close() leaves the table at once).
  admit(): boolean {
    if (this.table.size < this.cap) return true;
    const idle = this.values()
      .filter((conversation) => this.idle(conversation))
      .sort((a, b) => a.lastActivity - b.lastActivity);
    const excess = this.table.size - this.cap + 1;
    const evicted = idle.slice(0, excess);
    if (evicted.length < excess) return false;
    for (const conversation of evicted) {
      this.log(`session ${conversation.id} closed to make room: ${this.cap} sessions are open (--max-conversations)`, { session: conversation.id });
      void conversation.close();
    }
    return true;
  }

  // Closes conversations without a call in flight that were unused for longer than idleMs.
  sweep(idleMs: number, now = Date.now()): void {
    for (const conversation of this.values()) {
      if (conversation.opening || conversation.inFlight > 0 || now - conversation.lastActivity <= idleMs) continue;
      this.log(`session ${conversation.id} idle for ${Math.round((now - conversation.lastActivity) / 1000)}s: closing it and killing its commands`, {
        session: conversation.id,
      });
      void conversation.close();
    }
  }
}
