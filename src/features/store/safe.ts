// The store as tools see it: every call is safe. It composes the degrade guard (the first
// database failure warns once and turns the store into a no-op), the write-behind queue
// (record-only writes batched off the caller's path) and the memory mirror of this process's
// agents (ids and aliases survive a failed database). Only validation errors reach the caller.
// Every text a row takes from a call (tool name, command, workdir, summaries, alias) passes `redact` first.

import { openDatabase, databasePath } from './database.js';
import { DegradeGuard } from './degrade.js';
import { newAgentId, newServerId, normalizeAlias } from './identity.js';
import { HEARTBEAT_INTERVAL_MS } from './liveness.js';
import { AgentMirror } from './mirror.js';
import { SqliteStore } from './sqlite.js';
import { WriteBehind } from './writebehind.js';
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
  // Replaces known secret values in every text written (src/secrets.ts); none by default.
  redact?: (text: string) => string;
}

export class SafeStore implements Store {
  readonly databasePath: string;
  private readonly db: DegradeGuard;
  private readonly queue: WriteBehind;
  private readonly mirror: AgentMirror;
  private closed = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastCursor = 0;
  private readonly now: () => number;
  private readonly presetServerId: string | undefined;
  private readonly heartbeatIntervalMs: number;
  private readonly redact: (text: string) => string;

  constructor(options: OpenStoreOptions) {
    this.redact = options.redact ?? ((text) => text);
    this.databasePath = databasePath(options.stateDir);
    this.now = options.now ?? Date.now;
    this.presetServerId = options.serverId;
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS;
    const open = () =>
      new SqliteStore(openDatabase(options.stateDir, { busyTimeoutMs: options.busyTimeoutMs }), { now: this.now, staleAfterMs: options.staleAfterMs });
    this.db = new DegradeGuard(this.databasePath, options.warn, open, () => this.stopHeartbeat());
    this.queue = new WriteBehind(this.db, this.now);
    this.mirror = new AgentMirror(this.now);
  }

  get degraded(): boolean {
    return this.db.reason !== undefined;
  }

  get degradedReason(): string | undefined {
    return this.db.reason;
  }

  // A read or write on the database after the queued writes (so a read sees them).
  private guard<T>(fallback: () => T, body: (backend: SqliteStore) => T): T {
    this.queue.flush();
    return this.db.run(fallback, body);
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
    if (this.db.usable && !this.heartbeatTimer) {
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
      while (this.mirror.has(id)) id = newAgentId();
      return id;
    };
    const agentId = this.guard(fresh, (backend) => backend.registerAgent(serverId, fresh));
    this.mirror.add(agentId, serverId);
    return agentId;
  }

  endAgent(agentId: string): void {
    this.mirror.end(agentId);
    this.guard(
      () => undefined,
      (backend) => backend.endAgent(agentId),
    );
  }

  setAlias(agentId: string, given: string, by: AliasSetter): void {
    const alias = this.redact(given);
    const value = normalizeAlias(alias); // ALIAS_TOO_LONG even when degraded
    const at = this.now();
    // Degraded, an unknown agent cannot be told from another process's: accepted.
    this.guard(
      () => undefined,
      (backend) => backend.setAlias(agentId, alias, by),
    );
    this.mirror.setAlias(agentId, value, at, by);
  }

  agent(agentId: string): AgentRow | undefined {
    return this.guard(
      () => this.mirror.list(this.closed).find((agent) => agent.agentId === agentId),
      (backend) => backend.agent(agentId),
    );
  }

  agents(options: { liveOnly?: boolean; limit?: number } = {}): AgentRow[] {
    return this.guard(
      () => {
        const own = this.mirror.list(this.closed).filter((agent) => !options.liveOnly || agent.live);
        return options.limit === undefined ? own : own.slice(-Math.max(1, options.limit));
      },
      (backend) => backend.agents(options),
    );
  }

  servers(options: { liveOnly?: boolean; limit?: number } = {}): ServerRow[] {
    return this.guard(
      () => [],
      (backend) => backend.servers(options),
    );
  }

  // Writes what the write-behind queue holds (reads and close() do it themselves).
  flush(): void {
    this.queue.flush();
  }

  startInvocation(row: InvocationStart): number {
    // tool too: an unknown tool's name is the client's text
    return this.queue.startInvocation({
      ...row,
      tool: this.redact(row.tool),
      summary: this.redact(row.summary),
      ...(row.workdir !== undefined ? { workdir: this.redact(row.workdir) } : {}),
    });
  }

  finishInvocation(id: number, row: InvocationFinish): void {
    this.queue.finishInvocation(id, {
      ...row,
      resultSummary: this.redact(row.resultSummary),
      ...(row.outputFile !== undefined ? { outputFile: this.redact(row.outputFile) } : {}),
    });
  }

  sessionStarted(row: SessionStart): void {
    const redacted = { ...row, cmd: this.redact(row.cmd), cwd: this.redact(row.cwd) };
    this.queue.defer((backend) => backend.sessionStarted(redacted));
  }

  sessionEnded(sessionId: string, row: SessionEnd): void {
    this.queue.defer((backend) => backend.sessionEnded(sessionId, row));
  }

  sessions(options: { runningOnly?: boolean; limit?: number } = {}): SessionRow[] {
    return this.guard(
      () => [],
      (backend) => backend.sessions(options),
    );
  }

  operatorAction(row: OperatorActionInput): void {
    const redacted = row.detail === undefined ? row : { ...row, detail: this.redact(row.detail) };
    this.queue.defer((backend) => backend.operatorAction(redacted));
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
    this.queue.flush();
    this.stopHeartbeat();
    this.mirror.endAll();
    this.guard(
      () => undefined,
      (backend) => backend.endOwnServers(),
    );
    this.closed = true;
    this.db.close();
  }
}
