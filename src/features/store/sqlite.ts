// The store on a live SQLite connection: prepared statements, row mapping, liveness. Every
// method may throw (locked, corrupt, full disk …); safe.ts turns that into a one-time warning.
// Writes are single statements or IMMEDIATE transactions, so concurrent processes queue on the
// busy timeout instead of failing on a stale read snapshot.

import os from 'node:os';
import type { Database, Statement } from 'better-sqlite3';
import { StoreError } from './errors.js';
import { clip, newAgentId, normalizeAlias } from './identity.js';
import { SERVER_STALE_AFTER_MS, serverIsLive } from './liveness.js';
import { boundedLimit, num, str, toAgentRow, toChange, toHistoryRow, toPublicationRow, toServerRow, toSessionRow, type Row } from './rows.js';
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
} from './types.js';

export const SUMMARY_MAX_CHARS = 2_000; // command, patch summary, result summary, session cmd
export const DETAIL_MAX_CHARS = 500; // operator action detail (e.g. the input typed)
export const ERROR_MAX_CHARS = 2_000; // publication error text
export const DEFAULT_HISTORY_LIMIT = 1_000;
export const MAX_HISTORY_LIMIT = 100_000;
export const DEFAULT_CHANGES_LIMIT = 1_000; // changes listed per changesSince call (then more: true)
export const CHANGE_LOG_KEEP = 10_000; // change_log rows kept; older ones are pruned on heartbeat
const AGENT_ID_ATTEMPTS = 64; // random draws before giving up (the id space is ~923k)

export interface SqliteStoreOptions {
  now: () => number;
  staleAfterMs?: number;
}

export class SqliteStore {
  private readonly clock: () => number;
  private pinnedTime: number | undefined;
  private readonly staleAfterMs: number;
  private readonly statements = new Map<string, Statement>();
  // The server instance ids this process registered, stamped onto what it records.
  private readonly ownServers: string[] = [];

  constructor(
    readonly db: Database,
    options: SqliteStoreOptions,
  ) {
    this.clock = options.now;
    this.staleAfterMs = options.staleAfterMs ?? SERVER_STALE_AFTER_MS;
  }

  private now(): number {
    return this.pinnedTime ?? this.clock();
  }

  // Runs writes recorded earlier in one transaction, each with the time it was recorded at.
  batch(writes: readonly { at: number; write: (store: SqliteStore) => void }[]): void {
    this.db.transaction(() => {
      for (const { at, write } of writes) {
        this.pinnedTime = at;
        try {
          write(this);
        } finally {
          this.pinnedTime = undefined;
        }
      }
    })();
  }

  private sql(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private get currentServer(): string | null {
    return this.ownServers[0] ?? null;
  }

  // ---- servers ----

  registerServer(serverId: string, info: ServerInfo): void {
    const at = this.now();
    this.sql(
      `INSERT INTO servers (id, pid, hostname, transport, mode, started_at, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, heartbeat_at = excluded.heartbeat_at, ended_at = NULL`,
    ).run(serverId, info.pid, os.hostname(), info.transport, info.mode, at, at);
    if (!this.ownServers.includes(serverId)) this.ownServers.push(serverId);
  }

  heartbeat(): void {
    const at = this.now();
    const statement = this.sql('UPDATE servers SET heartbeat_at = ? WHERE id = ? AND ended_at IS NULL');
    for (const id of this.ownServers) statement.run(at, id);
    this.sql('DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - ?').run(CHANGE_LOG_KEEP);
  }

  // This process is going away: its servers and their agents end now.
  endOwnServers(): void {
    const at = this.now();
    this.db
      .transaction(() => {
        for (const id of this.ownServers) {
          this.sql('UPDATE agents SET ended_at = ? WHERE server_id = ? AND ended_at IS NULL').run(at, id);
          this.sql('UPDATE servers SET ended_at = ?, heartbeat_at = ? WHERE id = ? AND ended_at IS NULL').run(at, at, id);
        }
      })
      .immediate();
  }

  // Live servers, or the most recent `limit` (default DEFAULT_HISTORY_LIMIT) of all; oldest first.
  servers(options: { liveOnly?: boolean; limit?: number } = {}): ServerRow[] {
    const now = this.now();
    const limit = boundedLimit(options.limit, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT);
    const where = options.liveOnly ? 'WHERE ended_at IS NULL AND heartbeat_at >= @fresh' : '';
    const rows = this.sql(`SELECT * FROM (SELECT * FROM servers ${where} ORDER BY started_at DESC, id DESC LIMIT @limit) ORDER BY started_at, id`).all(
      options.liveOnly ? { fresh: now - this.staleAfterMs, limit } : { limit },
    ) as Row[];
    const servers = rows.map((row) => toServerRow(row, now, this.staleAfterMs));
    return options.liveOnly ? servers.filter((server) => server.live) : servers;
  }

  // Only servers that have not ended and beat recently are candidates (one row per zodexd ever
  // started accumulates); their pids are then checked.
  private liveServerIds(): Set<string> {
    const now = this.now();
    const rows = this.sql('SELECT id, pid, hostname, heartbeat_at FROM servers WHERE ended_at IS NULL AND heartbeat_at >= ?').all(
      now - this.staleAfterMs,
    ) as Row[];
    const live = rows.filter((row) =>
      serverIsLive(
        { pid: num(row.pid) ?? 0, hostname: str(row.hostname) ?? '', heartbeatAt: num(row.heartbeat_at) ?? 0, endedAt: null },
        now,
        this.staleAfterMs,
      ),
    );
    return new Set(live.map((row) => String(row.id)));
  }

  // ---- agents ----

  // A fresh Agent ID, unique over the whole database (so also among live agents of every
  // process): the primary key decides between racing processes; a collision draws again.
  registerAgent(serverId: string, draw: () => string = newAgentId): string {
    const insert = this.sql('INSERT INTO agents (id, server_id, started_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING');
    for (let attempt = 0; attempt < AGENT_ID_ATTEMPTS; attempt += 1) {
      const id = draw();
      if (insert.run(id, serverId, this.now()).changes === 1) return id;
    }
    throw new StoreError('STORE_UNAVAILABLE', `no free Agent ID after ${AGENT_ID_ATTEMPTS} draws`);
  }

  endAgent(agentId: string): void {
    this.sql('UPDATE agents SET ended_at = ? WHERE id = ? AND ended_at IS NULL').run(this.now(), agentId);
  }

  // Last write wins by wall-clock time of the call, whichever process commits first.
  setAlias(agentId: string, alias: string, by: AliasSetter): void {
    const value = normalizeAlias(alias);
    const at = this.now();
    const result = this.sql(
      `UPDATE agents SET alias = ?, alias_set_at = ?, alias_set_by = ?
       WHERE id = ? AND (alias_set_at IS NULL OR alias_set_at <= ?)`,
    ).run(value, at, by, agentId, at);
    if (result.changes === 0 && !this.sql('SELECT 1 FROM agents WHERE id = ?').get(agentId)) {
      throw new StoreError('UNKNOWN_AGENT', `no agent ${JSON.stringify(agentId)} in ${this.db.name}`);
    }
  }

  private agentRows(where: string, limit: number, ...params: unknown[]): AgentRow[] {
    const rows = this.sql(
      `SELECT * FROM (
         SELECT a.*, (SELECT count(*) FROM invocations i WHERE i.agent_id = a.id) AS invocation_count,
                (SELECT max(started_at) FROM invocations i WHERE i.agent_id = a.id) AS last_invocation_at
         FROM agents a ${where} ORDER BY a.started_at DESC, a.id DESC LIMIT ?
       ) ORDER BY started_at, id`,
    ).all(...params, limit) as Row[];
    const live = this.liveServerIds();
    return rows.map((row) => toAgentRow(row, live));
  }

  agent(agentId: string): AgentRow | undefined {
    return this.agentRows('WHERE a.id = ?', 1, agentId)[0];
  }

  // The most recent `limit` agents (default: all), oldest first.
  agents(options: { liveOnly?: boolean; limit?: number } = {}): AgentRow[] {
    const limit = options.limit === undefined ? -1 : boundedLimit(options.limit, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT);
    if (!options.liveOnly) return this.agentRows('', limit);
    return this.agentRows('WHERE a.ended_at IS NULL', limit).filter((agent) => agent.live);
  }

  // ---- invocations ----

  startInvocation(row: InvocationStart): number {
    const result = this.sql(`INSERT INTO invocations (agent_id, server_id, tool, workdir, summary, started_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
      row.agentId,
      this.currentServer,
      row.tool,
      row.workdir ?? null,
      clip(row.summary, SUMMARY_MAX_CHARS),
      this.now(),
    );
    return Number(result.lastInsertRowid);
  }

  finishInvocation(id: number, row: InvocationFinish): void {
    this.sql(
      `UPDATE invocations SET ended_at = ?, result_summary = ?, is_error = ?, exit_code = ?, termination_reason = ?,
              session_id = coalesce(?, session_id), output_file = coalesce(?, output_file)
       WHERE id = ?`,
    ).run(
      this.now(),
      clip(row.resultSummary, SUMMARY_MAX_CHARS),
      row.isError ? 1 : 0,
      row.exitCode ?? null,
      row.terminationReason ?? null,
      row.sessionId ?? null,
      row.outputFile ?? null,
      id,
    );
  }

  // ---- sessions ----

  sessionStarted(row: SessionStart): void {
    this.sql(
      `INSERT INTO sessions (id, agent_id, server_id, pid, cmd, cwd, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET agent_id = excluded.agent_id, server_id = excluded.server_id, pid = excluded.pid,
         cmd = excluded.cmd, cwd = excluded.cwd, started_at = excluded.started_at,
         ended_at = NULL, exit_code = NULL, termination_reason = NULL`,
    ).run(row.sessionId, row.agentId, row.serverId, row.pid, clip(row.cmd, SUMMARY_MAX_CHARS), row.cwd, this.now());
  }

  sessionEnded(sessionId: string, row: SessionEnd): void {
    this.sql('UPDATE sessions SET ended_at = ?, exit_code = ?, termination_reason = ? WHERE id = ? AND ended_at IS NULL').run(
      this.now(),
      row.exitCode ?? null,
      row.terminationReason ?? null,
      sessionId,
    );
  }

  sessions(options: { runningOnly?: boolean; limit?: number } = {}): SessionRow[] {
    const limit = boundedLimit(options.limit, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT);
    const rows = this.sql(
      `SELECT * FROM (
         SELECT s.*, coalesce(a.alias, '') AS agent_alias FROM sessions s LEFT JOIN agents a ON a.id = s.agent_id
         ${options.runningOnly ? 'WHERE s.ended_at IS NULL' : ''}
         ORDER BY s.started_at DESC, s.id DESC LIMIT ?
       ) ORDER BY started_at, id`,
    ).all(limit) as Row[];
    const live = this.liveServerIds();
    const sessions = rows.map((row) => toSessionRow(row, live));
    return options.runningOnly ? sessions.filter((session) => session.state === 'running') : sessions;
  }

  // ---- operator actions and publications ----

  operatorAction(row: OperatorActionInput): void {
    this.sql(
      `INSERT INTO operator_actions (at, session_id, agent_id, server_id, action, detail)
       VALUES (?, ?, (SELECT agent_id FROM sessions WHERE id = ?), ?, ?, ?)`,
    ).run(this.now(), row.sessionId, row.sessionId, this.currentServer, row.action, row.detail === undefined ? null : clip(row.detail, DETAIL_MAX_CHARS));
  }

  recordPublication(row: PublicationInput): void {
    for (const field of ['repository', 'branch', 'commit', 'mode'] as const) {
      if (typeof row[field] !== 'string' || row[field].trim() === '') {
        throw new StoreError('INVALID_ARGUMENT', `recordPublication: ${field} must be a non-empty string`);
      }
    }
    if (!['published', 'refused', 'failed'].includes(row.outcome)) {
      throw new StoreError('INVALID_ARGUMENT', `recordPublication: outcome must be published, refused or failed; got ${JSON.stringify(row.outcome)}`);
    }
    this.sql(
      `INSERT INTO publications (at, agent_id, server_id, mode, repository, branch, commit_sha, pr_url, outcome, error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      this.now(),
      row.agentId ?? null,
      this.currentServer,
      row.mode,
      row.repository,
      row.branch,
      row.commit,
      row.prUrl ?? null,
      row.outcome,
      row.error === undefined ? null : clip(row.error, ERROR_MAX_CHARS),
    );
  }

  publications(filter: { sinceMs?: number; limit?: number } = {}): PublicationRow[] {
    const limit = boundedLimit(filter.limit, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT);
    const rows = this.sql('SELECT * FROM (SELECT * FROM publications WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?) ORDER BY at, id').all(
      filter.sinceMs ?? 0,
      limit,
    ) as Row[];
    return rows.map(toPublicationRow);
  }

  // ---- history ----

  history(filter: HistoryFilter = {}): HistoryRow[] {
    const limit = boundedLimit(filter.limit, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT);
    const params = { agent: filter.agentId ?? null, since: filter.sinceMs ?? 0, limit };
    const rows = this.sql(
      `SELECT t.*, coalesce(a.alias, '') AS agent_alias FROM (
         SELECT 'invocation' AS kind, id, 'agent' AS actor, agent_id, server_id, tool, workdir, summary,
                started_at, ended_at, result_summary, is_error, exit_code, termination_reason, session_id, output_file
         FROM invocations WHERE (@agent IS NULL OR agent_id = @agent) AND started_at >= @since
         UNION ALL
         SELECT 'operator_action', o.id, 'operator', o.agent_id, o.server_id, 'operator.' || o.action,
                (SELECT cwd FROM sessions s WHERE s.id = o.session_id), coalesce(o.detail, ''),
                o.at, o.at, NULL, 0, NULL, NULL, o.session_id, NULL
         FROM operator_actions o WHERE (@agent IS NULL OR o.agent_id = @agent) AND o.at >= @since
         ORDER BY started_at DESC, kind DESC, id DESC LIMIT @limit
       ) t LEFT JOIN agents a ON a.id = t.agent_id
       ORDER BY t.started_at, t.kind, t.id`,
    ).all(params) as Row[];
    const live = this.liveServerIds();
    return rows.map((row) => toHistoryRow(row, live));
  }

  // ---- changes ----

  changeCursor(): number {
    const row = this.sql('SELECT seq FROM change_log ORDER BY seq DESC LIMIT 1').get() as Row | undefined;
    return num(row?.seq) ?? 0;
  }

  changesSince(cursor: number, limit = DEFAULT_CHANGES_LIMIT): ChangeBatch {
    const max = boundedLimit(limit, DEFAULT_CHANGES_LIMIT, MAX_HISTORY_LIMIT);
    return this.db
      .transaction((): ChangeBatch => {
        const latest = this.changeCursor();
        // A cursor from the future belongs to another database (or a restored file): reload.
        if (cursor >= latest) return { cursor: latest, changes: [], reset: cursor > latest, more: false };
        const oldest = num((this.sql('SELECT min(seq) AS seq FROM change_log').get() as Row | undefined)?.seq) ?? latest;
        // Pruned past the cursor: the client missed changes it can no longer list; reload.
        if (cursor < oldest - 1) return { cursor: latest, changes: [], reset: true, more: false };
        const rows = this.sql('SELECT * FROM change_log WHERE seq > ? ORDER BY seq LIMIT ?').all(cursor, max) as Row[];
        const changes = rows.map(toChange);
        const next = changes.at(-1)?.seq ?? latest;
        return { cursor: next, changes, reset: false, more: next < latest };
      })
      .deferred();
  }

  close(): void {
    this.db.close();
  }
}
