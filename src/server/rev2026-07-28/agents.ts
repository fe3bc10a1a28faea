// Who is calling, in the 2026-07-28 era (no initialize, no session): the Agent ID is resolved per
// request from the conversation id the client puts in _meta (agentKeyOf), else a stable fallback;
// each key has one Conversation (its Agent ID, zodex_context memory), kept while it is used. The
// 2025-11-25 era uses the same table for calls whose _meta names a conversation (server.ts).

import { createHash, randomUUID } from 'node:crypto';
import { Conversation } from '../conversation.js';
import type { ServerRuntime } from '../options.js';
import type { Envelope } from '../../wire/rev2026-07-28/envelope.js';
import type { Log } from '../../log.js';
import { ownAgent } from '../server.js';
import type { CallAgent, CallExtra } from '../tools.js';

// _meta keys that name the client's conversation, in the order they are trusted (docs/protocol-revisions.md, "Agent ID").
export const CONVERSATION_META_KEYS = ['threadId', 'sessionId', 'openai/session', 'vscode.conversationId'] as const;
// Set by Claude Code in the environment of a stdio server it spawns (its session id).
export const CLAUDE_SESSION_ENV = 'CLAUDE_CODE_SESSION_ID';

export interface AgentKey {
  source: string; // the _meta key, the env variable, or "fallback"
  key: string; // a digest: bounded whatever the client sent
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 32);

// The conversation id a request's _meta names (the first of CONVERSATION_META_KEYS present), scoped
// to the principal; undefined when it names none. Both eras resolve the agent from it.
export function metaAgentKey(meta: Record<string, unknown> | undefined, principal = 'static'): AgentKey | undefined {
  for (const name of CONVERSATION_META_KEYS) {
    const value = meta?.[name];
    if ((typeof value === 'string' && value !== '') || typeof value === 'number')
      return { source: `_meta.${name}`, key: digest(`${principal}\0meta\0${String(value)}`) };
  }
  return undefined;
}

// peer: what identifies the transport end when nothing else does ("stdio", or the HTTP client's
// address and token); env: the stdio process's environment; principal: who the bearer token
// names (an OAuth grant id, else 'static'): two grants never share an agent, whatever _meta says.
export function agentKeyOf(envelope: Envelope, peer: string, env: Record<string, string | undefined> = {}, principal = 'static'): AgentKey {
  const fromMeta = metaAgentKey(envelope.meta, principal);
  if (fromMeta) return fromMeta;
  const scoped = (value: string) => digest(`${principal}\0${value}`);
  const claude = env[CLAUDE_SESSION_ENV];
  if (claude) return { source: CLAUDE_SESSION_ENV, key: scoped(`env\0${claude}`) };
  return { source: 'fallback', key: scoped(`fallback\0${envelope.clientInfo?.name ?? ''}\0${peer}`) };
}

interface Entry {
  conversation: Conversation;
  lastUsed: number;
  inFlight: number;
}

export class AgentTable {
  private readonly table = new Map<string, Entry>();

  constructor(
    private readonly runtime: ServerRuntime,
    readonly cap: number,
    private readonly log: Log,
  ) {}

  get size(): number {
    return this.table.size;
  }

  // A command it owns (2026-07-28), or one it started from a 2025-11-25 session, which owns it.
  private hasRunningCommand(entry: Entry): boolean {
    const { id, assignedAgentId } = entry.conversation;
    return this.runtime.engine
      .list()
      .some((session) => (session.owner === id || (assignedAgentId !== undefined && session.agentId === assignedAgentId)) && !session.hasEnded);
  }

  private idle(entry: Entry): boolean {
    return entry.inFlight === 0 && !this.hasRunningCommand(entry);
  }

  // The conversation of `key` for one call (end it with release), or undefined when the table is
  // full of agents that each have a call in flight or a command running.
  acquire(key: string, principal = 'static', now = Date.now()): Conversation | undefined {
    let entry = this.table.get(key);
    if (!entry) {
      if (this.table.size >= this.cap) {
        const oldest = [...this.table.entries()].filter(([, candidate]) => this.idle(candidate)).sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
        if (!oldest) return undefined;
        this.log(`agent ${oldest[1].conversation.agentId} forgotten to make room: ${this.cap} agents are known (--max-conversations)`, {
          agent: oldest[1].conversation.agentId,
        });
        this.drop(oldest[0], 'forget');
      }
      entry = { conversation: new Conversation(this.runtime, `agent-${randomUUID()}`, principal), lastUsed: now, inFlight: 0 };
      this.table.set(key, entry);
    }
    entry.inFlight++;
    entry.lastUsed = now;
    return entry.conversation;
  }

  release(key: string, now = Date.now()): void {
    const entry = this.table.get(key);
    if (!entry) return;
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    entry.lastUsed = now;
  }

  // Forgets every agent of `principal` (a revoked grant), its commands killed.
  dropPrincipal(principal: string): void {
    for (const [key, entry] of this.table) if (entry.conversation.principal === principal) this.drop(key);
  }

  // Forgets agents unused for longer than idleMs that have no command running (a command that
  // ended still reports its exit to the next call on its handle: it belongs to the handle).
  sweep(idleMs: number, now = Date.now()): void {
    for (const [key, entry] of this.table) {
      if (now - entry.lastUsed > idleMs && this.idle(entry)) this.drop(key, 'forget');
    }
  }

  close(): void {
    for (const key of [...this.table.keys()]) this.drop(key);
  }

  // close: its commands are killed too (shutdown, a revoked grant); forget: an idle agent's record only.
  private drop(key: string, how: 'close' | 'forget' = 'close'): void {
    const entry = this.table.get(key);
    this.table.delete(key);
    entry?.conversation[how]();
  }
}

// For a 2025-11-25 conversation: the agent a call runs as, the one its _meta names (held in
// `agents` for the call), else the conversation's own. A table full of busy agents leaves the call
// its conversation's agent: it is a label, not a reason to refuse the command.
export function agentsFromMeta(agents: AgentTable, conversation: Conversation, log: (message: string) => void): (extra: CallExtra) => CallAgent {
  return (extra) => {
    const key = metaAgentKey(extra._meta as Record<string, unknown> | undefined, conversation.principal);
    if (!key) return ownAgent(conversation);
    const agent = agents.acquire(key.key, conversation.principal);
    if (!agent) {
      log(
        `a call names ${key.source} in _meta, but ${agents.cap} agents are known and each is busy (--max-conversations): it runs as its conversation's agent`,
      );
      return ownAgent(conversation);
    }
    return { conversation: agent, release: () => agents.release(key.key) };
  };
}
