// Row mapping for the SQLite store: each table's raw row (snake_case, numbers maybe bigint,
// NULLs) becomes the typed row of types.ts, with liveness decided from the servers seen live.
// Pure functions; sqlite.ts runs the statements and hands the rows here.

import { serverIsLive } from './liveness.js';
import type { AgentRow, Change, ChangeKind, HistoryRow, HistoryStatus, PublicationOutcome, PublicationRow, ServerRow, SessionRow } from './types.js';

export type Row = Record<string, unknown>;

export const num = (value: unknown): number | null => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : null);
export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

// A caller's limit, floored and kept within 1..max (fallback when absent or not finite).
export function boundedLimit(limit: number | undefined, fallback: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return fallback;
  return Math.max(1, Math.min(max, Math.floor(limit)));
}

export function toServerRow(row: Row, now: number, staleAfterMs: number): ServerRow {
  const facts = {
    pid: num(row.pid) ?? 0,
    hostname: str(row.hostname) ?? '',
    heartbeatAt: num(row.heartbeat_at) ?? 0,
    endedAt: num(row.ended_at),
  };
  return {
    serverId: String(row.id),
    ...facts,
    transport: str(row.transport) ?? '',
    mode: str(row.mode) ?? '',
    startedAt: num(row.started_at) ?? 0,
    live: serverIsLive(facts, now, staleAfterMs),
  };
}

// live: the ids of the servers that are live now.
export function toAgentRow(row: Row, live: ReadonlySet<string>): AgentRow {
  const endedAt = num(row.ended_at);
  const serverId = String(row.server_id);
  const setBy = str(row.alias_set_by);
  return {
    agentId: String(row.id),
    alias: str(row.alias) ?? '',
    aliasSetAt: num(row.alias_set_at),
    aliasSetBy: setBy === 'agent' || setBy === 'operator' ? setBy : null,
    serverId,
    startedAt: num(row.started_at) ?? 0,
    endedAt,
    live: endedAt === null && live.has(serverId),
    invocations: num(row.invocation_count) ?? 0,
    lastInvocationAt: num(row.last_invocation_at),
  };
}

export function toSessionRow(row: Row, live: ReadonlySet<string>): SessionRow {
  const endedAt = num(row.ended_at);
  const serverId = String(row.server_id);
  return {
    sessionId: String(row.id),
    agentId: String(row.agent_id),
    agentAlias: str(row.agent_alias) ?? '',
    serverId,
    pid: num(row.pid),
    cmd: str(row.cmd) ?? '',
    cwd: str(row.cwd) ?? '',
    startedAt: num(row.started_at) ?? 0,
    endedAt,
    exitCode: num(row.exit_code),
    terminationReason: str(row.termination_reason),
    state: endedAt !== null ? 'exited' : live.has(serverId) ? 'running' : 'lost',
  };
}

export function toPublicationRow(row: Row): PublicationRow {
  return {
    id: num(row.id) ?? 0,
    at: num(row.at) ?? 0,
    agentId: str(row.agent_id),
    serverId: str(row.server_id),
    mode: str(row.mode) ?? '',
    repository: str(row.repository) ?? '',
    branch: str(row.branch) ?? '',
    commit: str(row.commit_sha) ?? '',
    prUrl: str(row.pr_url),
    outcome: (str(row.outcome) ?? 'failed') as PublicationOutcome,
    error: str(row.error),
  };
}

// An invocation or operator action row of the history union (see SqliteStore.history).
export function toHistoryRow(row: Row, live: ReadonlySet<string>): HistoryRow {
  const startedAt = num(row.started_at) ?? 0;
  const endedAt = num(row.ended_at);
  const isError = num(row.is_error);
  const serverId = str(row.server_id);
  let status: HistoryStatus;
  if (endedAt !== null) status = isError ? 'error' : 'ok';
  else status = serverId !== null && live.has(serverId) ? 'running' : 'interrupted';
  const kind = row.kind === 'operator_action' ? 'operator_action' : 'invocation';
  return {
    kind,
    id: num(row.id) ?? 0,
    actor: kind === 'operator_action' ? 'operator' : 'agent',
    agentId: str(row.agent_id),
    agentAlias: str(row.agent_alias) ?? '',
    serverId,
    tool: str(row.tool) ?? '',
    workdir: str(row.workdir),
    summary: str(row.summary) ?? '',
    startedAt,
    endedAt,
    durationMs: endedAt === null ? null : endedAt - startedAt,
    status,
    resultSummary: str(row.result_summary),
    isError: isError === null ? null : isError !== 0,
    exitCode: num(row.exit_code),
    terminationReason: str(row.termination_reason),
    sessionId: str(row.session_id),
    outputFile: str(row.output_file),
  };
}

export function toChange(row: Row): Change {
  return { seq: num(row.seq) ?? 0, at: num(row.at) ?? 0, kind: String(row.kind) as ChangeKind, ref: String(row.ref) };
}
