// The store as tools see it: every call is safe. The first database failure (locked, corrupt,
// unwritable, too new) prints ONE warning and turns the store into a no-op for the rest of the
// process; Agent IDs and aliases then live in memory so conversations still get their ids.
// Only validation errors (ALIAS_TOO_LONG, UNKNOWN_AGENT, INVALID_ARGUMENT) reach the caller.

import { openDatabase, databasePath, type OpenDatabaseOptions } from './database.js';
import { describeStoreFailure, isValidationError } from './errors.js';
import { newAgentId, newServerId, normalizeAlias } from './identity.js';
import { HEARTBEAT_INTERVAL_MS } from './liveness.js';
import { SqliteStore } from './sqlite.js';
import type {
  AgentRow,
  AliasSetter,
  ChangeBatch,
  HistoryFilter,
  HistoryRow,
  InvocationFinish,
  InvocationStart,
  OperatorActionInput,
  PublicationInput,
  PublicationRow,
  ServerInfo,
  ServerRow,
  SessionEnd,
  SessionRow,
  SessionStart,
  Store,
} from './types.js';

export interface OpenStoreOptions {
  stateDir: string;
  warn: (message: string) => void;
  serverId?: string; // the id registerServer returns (default: a fresh random one)
  // For tests and tools; production uses the defaults.
  now?: () => number;
  busyTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  staleAfterMs?: number;
}

const FLUSH_DELAY_MS = 10;
const OFF_NOTE = 'history, agent aliases and the Liveboard feed are off for this zodex process; tools keep working';

export class SafeStore implements Store {
  readonly databasePath: string;
  private backend: SqliteStore | undefined;
  private failure: string | undefined;
  private closed = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastCursor = 0;
  private readonly warn: (message: string) => void;
  private readonly now: () => number;
  private readonly presetServerId: string | undefined;
  private readonly heartbeatIntervalMs: number;
  // This process's own agents, mirrored in memory: ids stay unique and agents() still answers
  // after the database failed.
  private readonly ownAgents = new Map<string, AgentRow>();
  private flushing = false;

  constructor(options: OpenStoreOptions) {
    this.databasePath = databasePath(options.stateDir);
    this.warn = options.warn;
    this.now = options.now ?? Date.now;
    this.presetServerId = options.serverId;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS;
    try {
      const openOptions: OpenDatabaseOptions = { busyTimeoutMs: options.busyTimeoutMs };
      const db = openDatabase(options.stateDir, openOptions);
      this.backend = new SqliteStore(db, { now: this.now, staleAfterMs: options.staleAfterMs });
    } catch (error) {
      this.degrade(error);
    }
  }

  get degraded(): boolean {
    return this.failure !== undefined;
  }

  get degradedReason(): string | undefined {
    return this.failure;
  }

  // Runs `body` on the database (after the queued writes, so a read sees them); on failure
  // degrades once and answers `fallback()`.
  private guard<T>(fallback: () => T, body: (backend: SqliteStore) => T): T {
    if (this.pending.length > 0 && !this.flushing) {
      this.flushing = true;
      try {
        this.flush();
      } finally {
        this.flushing = false;
      }
    }
    const backend = this.backend;
    if (!backend || this.closed) return fallback();
    try {
      return body(backend);
    } catch (error) {
      if (isValidationError(error)) throw error;
      this.degrade(error);
      return fallback();
    }
  }

  private degrade(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = `${describeStoreFailure(error, this.databasePath)}; ${OFF_NOTE}`;
    this.stopHeartbeat();
    const backend = this.backend;
    this.backend = undefined;
    try {
      backend?.close();
    } catch {
      // already broken
    }
    try {
      this.warn(this.failure);
    } catch {
      // a broken stderr must not break a tool call either
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  registerServer(info: ServerInfo): string {
    const serverId = this.presetServerId ?? newServerId();
    this.guard(
      () => undefined,
      (backend) => backend.registerServer(serverId, info),
    );
    if (this.backend && !this.heartbeatTimer) {
      this.heartbeatTimer = setInterval(() => {
        this.guard(
          () => undefined,
          (backend) => backend.heartbeat(),
        );
      }, this.heartbeatIntervalMs);
      this.heartbeatTimer.unref();
    }
    return serverId;
  }

  registerAgent(serverId: string): string {
    const fresh = () => {
      let id = newAgentId();
      while (this.ownAgents.has(id)) id = newAgentId();
      return id;
    };
    const agentId = this.guard(fresh, (backend) => backend.registerAgent(serverId, fresh));
    this.ownAgents.set(agentId, {
      agentId,
      alias: '',
      aliasSetAt: null,
      aliasSetBy: null,
      serverId,
      startedAt: this.now(),
      endedAt: null,
      live: true,
      invocations: 0,
      lastInvocationAt: null,
    });
    return agentId;
  }

  endAgent(agentId: string): void {
    const own = this.ownAgents.get(agentId);
    if (own && own.endedAt === null) Object.assign(own, { endedAt: this.now(), live: false });
    this.guard(
      () => undefined,
      (backend) => backend.endAgent(agentId),
    );
  }

  setAlias(agentId: string, alias: string, by: AliasSetter): void {
    const value = normalizeAlias(alias); // ALIAS_TOO_LONG even when degraded
    const at = this.now();
    this.guard(
      () => {
        if (!this.ownAgents.has(agentId)) return; // cannot tell unknown from "another process's": accept
      },
      (backend) => backend.setAlias(agentId, alias, by),
    );
    const own = this.ownAgents.get(agentId);
    if (own && (own.aliasSetAt === null || own.aliasSetAt <= at)) Object.assign(own, { alias: value, aliasSetAt: at, aliasSetBy: by });
  }

  agent(agentId: string): AgentRow | undefined {
    return this.guard(
      () => this.ownAgentCopies().find((agent) => agent.agentId === agentId),
      (backend) => backend.agent(agentId),
    );
  }

  agents(options: { liveOnly?: boolean; limit?: number } = {}): AgentRow[] {
    return this.guard(
      () => {
        const own = this.ownAgentCopies().filter((agent) => !options.liveOnly || agent.live);
        return options.limit === undefined ? own : own.slice(-Math.max(1, options.limit));
      },
      (backend) => backend.agents(options),
    );
  }

  private ownAgentCopies(): AgentRow[] {
    return [...this.ownAgents.values()].map((agent) => ({ ...agent, live: agent.endedAt === null && !this.closed }));
  }

  servers(options: { liveOnly?: boolean; limit?: number } = {}): ServerRow[] {
    return this.guard(
      () => [],
      (backend) => backend.servers(options),
    );
  }

  // Record-only writes (invocations, sessions, operator actions) are queued and written together
  // 10 ms later, in one transaction, each with the time it was made: a tool call pays no
  // database write while its caller waits. Reads and close() flush first.
  private readonly pending: { at: number; write: (backend: SqliteStore) => void }[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  // Invocation ids handed out before their row exists -> the row id, once written.
  private nextInvocation = 1;
  private readonly invocationRows = new Map<number, number>();

  private defer(write: (backend: SqliteStore) => void): void {
    if (!this.backend || this.closed) return;
    this.pending.push({ at: this.now(), write });
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  // Writes what is queued (called by the timer, before reads, and at close).
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length === 0) return;
    const writes = this.pending.splice(0);
    this.guard(
      () => undefined,
      (backend) => backend.batch(writes),
    );
  }

  startInvocation(row: InvocationStart): number {
    if (!this.backend || this.closed) return -1;
    const id = this.nextInvocation++;
    this.defer((backend) => this.invocationRows.set(id, backend.startInvocation(row)));
    return id;
  }

  finishInvocation(id: number, row: InvocationFinish): void {
    if (id < 0) return;
    this.defer((backend) => {
      const rowId = this.invocationRows.get(id);
      this.invocationRows.delete(id);
      if (rowId !== undefined) backend.finishInvocation(rowId, row);
    });
  }

  sessionStarted(row: SessionStart): void {
    this.defer((backend) => backend.sessionStarted(row));
  }

  sessionEnded(sessionId: string, row: SessionEnd): void {
    this.defer((backend) => backend.sessionEnded(sessionId, row));
  }

  sessions(options: { runningOnly?: boolean; limit?: number } = {}): SessionRow[] {
    return this.guard(
      () => [],
      (backend) => backend.sessions(options),
    );
  }

  operatorAction(row: OperatorActionInput): void {
    this.defer((backend) => backend.operatorAction(row));
  }

  recordPublication(row: PublicationInput): void {
    this.guard(
      () => undefined,
      (backend) => backend.recordPublication(row),
    );
  }

  publications(filter: { sinceMs?: number; limit?: number } = {}): PublicationRow[] {
    return this.guard(
      () => [],
      (backend) => backend.publications(filter),
    );
  }

  history(filter: HistoryFilter = {}): HistoryRow[] {
    return this.guard(
      () => [],
      (backend) => backend.history(filter),
    );
  }

  changeCursor(): number {
    return this.guard(
      () => this.lastCursor,
      (backend) => (this.lastCursor = backend.changeCursor()),
    );
  }

  changesSince(cursor: number, limit?: number): ChangeBatch {
    return this.guard(
      () => ({ cursor: Math.max(cursor, this.lastCursor), changes: [], reset: false, more: false }),
      (backend) => backend.changesSince(cursor, limit),
    );
  }

  // Ends this process's servers and agents in the database, then closes it. Idempotent.
  close(): void {
    if (this.closed) return;
    this.flush();
    this.stopHeartbeat();
    for (const agent of this.ownAgents.values()) if (agent.endedAt === null) agent.endedAt = this.now();
    this.guard(
      () => undefined,
      (backend) => backend.endOwnServers(),
    );
    this.closed = true;
    try {
      this.backend?.close();
    } catch {
      // nothing left to do
    }
    this.backend = undefined;
  }
}
