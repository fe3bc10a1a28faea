// The store's contract: what the server, the Liveboard, the publisher and the zodex CLI call,
// and the rows they get back. Times are milliseconds since the Unix epoch.

import type { Recorder } from '../../server/seams.js';

export type TransportKind = 'stdio' | 'http';
export type ServerMode = 'local' | 'sprite';
export type AliasSetter = 'agent' | 'operator';
export type OperatorActionKind = 'input' | 'kill';
export type PublicationOutcome = 'published' | 'refused' | 'failed';

export interface ServerInfo {
  transport: TransportKind;
  pid: number;
  mode: ServerMode;
}

// What the server records of an invocation (its Recorder seam; the summary is clipped to SUMMARY_MAX_CHARS).
export type { InvocationFinish, InvocationStart } from '../../server/seams.js';

export interface SessionStart {
  sessionId: string;
  agentId: string;
  serverId: string;
  pid: number;
  cmd: string;
  cwd: string;
}

export interface SessionEnd {
  exitCode?: number;
  terminationReason?: string;
}

export interface OperatorActionInput {
  sessionId: string;
  action: OperatorActionKind;
  detail?: string; // e.g. the input typed; clipped to DETAIL_MAX_CHARS
}

export interface PublicationInput {
  agentId?: string;
  repository: string;
  branch: string;
  commit: string;
  prUrl?: string;
  outcome: PublicationOutcome;
  error?: string;
  mode: string;
}

export interface ServerRow {
  serverId: string;
  pid: number;
  hostname: string;
  transport: string;
  mode: string;
  startedAt: number;
  heartbeatAt: number;
  endedAt: number | null;
  live: boolean; // not ended, heartbeat fresh, pid alive (same host)
}

export interface AgentRow {
  agentId: string;
  alias: string; // '' when unnamed
  aliasSetAt: number | null;
  aliasSetBy: AliasSetter | null;
  serverId: string;
  startedAt: number;
  endedAt: number | null;
  live: boolean; // not ended and its server is live
  invocations: number;
  lastInvocationAt: number | null;
}

export type SessionState = 'running' | 'exited' | 'lost'; // lost: its server died before it ended

export interface SessionRow {
  sessionId: string;
  agentId: string;
  agentAlias: string;
  serverId: string;
  pid: number | null;
  cmd: string;
  cwd: string;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
  terminationReason: string | null;
  state: SessionState;
}

// 'running': not finished and its server is live; 'interrupted': not finished and its server died.
export type HistoryStatus = 'running' | 'ok' | 'error' | 'interrupted';

// One line of the timeline: a tool invocation by an agent, or an operator action from the
// Liveboard (actor 'operator', tool 'operator.input' | 'operator.kill').
export interface HistoryRow {
  kind: 'invocation' | 'operator_action';
  id: number; // unique within its kind
  actor: 'agent' | 'operator';
  agentId: string | null; // for operator actions: the agent whose session it was
  agentAlias: string; // the agent's current alias (display only)
  serverId: string | null;
  tool: string;
  workdir: string | null;
  summary: string;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  status: HistoryStatus;
  resultSummary: string | null;
  isError: boolean | null;
  exitCode: number | null;
  terminationReason: string | null;
  sessionId: string | null;
  outputFile: string | null;
}

export interface HistoryFilter {
  agentId?: string;
  sinceMs?: number; // absolute epoch ms: rows that started at or after it
  limit?: number; // the most recent N rows (default DEFAULT_HISTORY_LIMIT), returned oldest first
}

export interface PublicationRow {
  id: number;
  at: number;
  agentId: string | null;
  serverId: string | null;
  mode: string;
  repository: string;
  branch: string;
  commit: string;
  prUrl: string | null;
  outcome: PublicationOutcome;
  error: string | null;
}

export type ChangeKind = 'server' | 'agent' | 'invocation' | 'session' | 'operator_action' | 'publication';

export interface Change {
  seq: number;
  at: number;
  kind: ChangeKind;
  ref: string; // the changed row's id (Agent ID, session id, invocation id, …)
}

export interface ChangeBatch {
  cursor: number; // pass back to the next changesSince
  changes: Change[]; // oldest first, at most `limit`
  more: boolean; // further changes wait beyond `cursor`: call again
  // true when the changes after `cursor` were pruned (or `cursor` is not from this database):
  // the caller should reload everything; `cursor` is then the latest.
  reset: boolean;
}

export interface Store extends Recorder {
  readonly degraded: boolean; // true once the database failed; every call is then a no-op
  readonly degradedReason: string | undefined; // the warning that was printed
  readonly databasePath: string;

  // registerAgent, endAgent, startInvocation, finishInvocation: the Recorder the server calls.
  registerServer(info: ServerInfo): string;
  // Throws StoreError ALIAS_TOO_LONG / UNKNOWN_AGENT; '' clears; last write (by time) wins.
  setAlias(agentId: string, alias: string, by: AliasSetter): void;
  agent(agentId: string): AgentRow | undefined;
  agents(options?: { liveOnly?: boolean; limit?: number }): AgentRow[]; // the most recent `limit` (default all), oldest first
  servers(options?: { liveOnly?: boolean; limit?: number }): ServerRow[];

  sessionStarted(row: SessionStart): void;
  sessionEnded(sessionId: string, row: SessionEnd): void;
  sessions(options?: { runningOnly?: boolean; limit?: number }): SessionRow[];

  operatorAction(row: OperatorActionInput): void;
  recordPublication(row: PublicationInput): void;
  publications(filter?: { sinceMs?: number; limit?: number }): PublicationRow[];

  history(filter?: HistoryFilter): HistoryRow[];

  changeCursor(): number; // increases on every change, in any process
  changesSince(cursor: number, limit?: number): ChangeBatch;

  // Writes the queued records now (they are otherwise written on the next turn of the event loop).
  flush(): void;
  close(): void;
}
