// What every open Liveboard shows, read from the shared store, and the changes pushed to it.
// Flow: a page subscribes -> the current sections (snapshot); every POLL_INTERVAL_MS the change
// log (written by triggers in every process) is read; when anything changed, the sections are
// read again and only those that differ go out (an update). Liveness (a heartbeat going stale, a
// pid gone) changes without a change row, so everything is also re-read every REFRESH_INTERVAL_MS.

import type { AgentRow, HistoryRow, ServerRow, SessionRow, Store } from '../store/index.js';

export const POLL_INTERVAL_MS = 200; // the issue: a change reaches every page within one second
export const REFRESH_INTERVAL_MS = 5_000;
export const AGENTS_SHOWN = 20; // the most recent agents, and every live one besides
export const SERVERS_SHOWN = 10; // the most recent servers, and every live one besides
export const SESSIONS_SHOWN = 30; // the most recent sessions, and every running one besides
export const TIMELINE_ROWS = 30; // per agent, the most recent
export const TEXT_SHOWN_CHARS = 400; // summaries are cut for the page (the store keeps 2,000)

// The store as the Liveboard uses it: a SafeStore in zodexd, a SqliteStore in `zodex liveboard`.
export type BoardStore = Pick<Store, 'agents' | 'servers' | 'sessions' | 'history' | 'changesSince' | 'changeCursor' | 'setAlias'> & {
  readonly degradedReason?: string | undefined;
};

export interface BoardSections {
  servers: ServerRow[];
  agents: AgentRow[];
  sessions: SessionRow[];
  timelines: Record<string, HistoryRow[]>; // Agent ID -> its most recent rows, oldest first
  problem: string | null; // the store is unusable: why
}

// Sections that changed; `timelines` holds only the agents whose timeline changed.
export type BoardUpdate = Partial<BoardSections>;

function clipText(text: string | null): string | null {
  return text !== null && text.length > TEXT_SHOWN_CHARS ? `${text.slice(0, TEXT_SHOWN_CHARS - 1)}…` : text;
}

function mergeById<T>(rows: T[], more: T[], id: (row: T) => string): T[] {
  const seen = new Set(rows.map(id));
  return [...rows, ...more.filter((row) => !seen.has(id(row)))];
}

export function readSections(store: BoardStore): BoardSections {
  const servers = mergeById(store.servers({ limit: SERVERS_SHOWN }), store.servers({ liveOnly: true }), (row) => row.serverId);
  const agents = mergeById(store.agents({ limit: AGENTS_SHOWN }), store.agents({ liveOnly: true }), (row) => row.agentId);
  const timelines: Record<string, HistoryRow[]> = {};
  for (const agent of agents) {
    timelines[agent.agentId] = store
      .history({ agentId: agent.agentId, limit: TIMELINE_ROWS })
      .map((row) => ({ ...row, summary: clipText(row.summary) ?? '', resultSummary: clipText(row.resultSummary) }));
  }
  const sessions = mergeById(store.sessions({ limit: SESSIONS_SHOWN }), store.sessions({ runningOnly: true }), (row) => row.sessionId).map((row) => ({
    ...row,
    cmd: clipText(row.cmd) ?? '',
  }));
  return { servers, agents, sessions, timelines, problem: store.degradedReason ?? null };
}

const EMPTY_SECTIONS: BoardSections = { servers: [], agents: [], sessions: [], timelines: {}, problem: null };

export interface FeedOptions {
  pollMs?: number;
  refreshMs?: number;
  log?: (message: string) => void;
}

type Listener = (update: BoardUpdate) => void;

export class Feed {
  private readonly listeners = new Set<Listener>();
  private readonly sent = new Map<string, string>(); // section key -> its JSON as last sent
  private current: BoardSections | undefined;
  private cursor = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private lastError: string | undefined;
  private readonly pollMs: number;
  private readonly refreshMs: number;
  private readonly log: (message: string) => void;

  constructor(
    private readonly store: BoardStore,
    options: FeedOptions = {},
  ) {
    this.pollMs = options.pollMs ?? POLL_INTERVAL_MS;
    this.refreshMs = options.refreshMs ?? REFRESH_INTERVAL_MS;
    this.log = options.log ?? (() => undefined);
  }

  // The sections now, and every later update until unsubscribed. Polling runs while anyone listens.
  subscribe(listener: Listener): { snapshot: BoardSections; unsubscribe: () => void } {
    if (this.listeners.size === 0) this.start();
    this.listeners.add(listener);
    return {
      snapshot: this.current!,
      unsubscribe: () => {
        this.listeners.delete(listener);
        if (this.listeners.size === 0) this.stop();
      },
    };
  }

  // Something just changed here (an alias saved, an input sent): look now rather than next tick.
  pollNow(): void {
    if (this.listeners.size > 0) this.poll();
  }

  private start(): void {
    this.cursor = this.guarded(() => this.store.changeCursor(), this.cursor);
    this.refresh();
    this.pollTimer = setInterval(() => this.poll(), this.pollMs);
    this.refreshTimer = setInterval(() => this.refresh(), this.refreshMs);
    this.pollTimer.unref();
    this.refreshTimer.unref();
  }

  private stop(): void {
    clearInterval(this.pollTimer);
    clearInterval(this.refreshTimer);
    this.pollTimer = this.refreshTimer = undefined;
    this.sent.clear();
    this.current = undefined;
  }

  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private poll(): void {
    const changed = this.guarded(() => {
      let any = false;
      for (;;) {
        const batch = this.store.changesSince(this.cursor);
        this.cursor = batch.cursor;
        any ||= batch.changes.length > 0 || batch.reset;
        if (!batch.more) return any;
      }
    }, false);
    if (changed) this.refresh();
  }

  private refresh(): void {
    const sections = this.guarded(() => readSections(this.store), undefined) ?? {
      ...(this.current ?? EMPTY_SECTIONS),
      problem: this.lastError ?? 'state database unreadable',
    };
    const update: BoardUpdate = {};
    for (const key of ['servers', 'agents', 'sessions', 'problem'] as const) {
      if (this.differs(key, sections[key])) (update as Record<string, unknown>)[key] = sections[key];
    }
    const timelines: Record<string, HistoryRow[]> = {};
    for (const [agentId, rows] of Object.entries(sections.timelines)) {
      if (this.differs(`timeline:${agentId}`, rows)) timelines[agentId] = rows;
    }
    if (Object.keys(timelines).length > 0) update.timelines = timelines;
    const first = this.current === undefined;
    this.current = sections;
    if (!first && Object.keys(update).length > 0) this.emit(update);
  }

  private differs(key: string, value: unknown): boolean {
    const json = JSON.stringify(value);
    if (this.sent.get(key) === json) return false;
    this.sent.set(key, json);
    return true;
  }

  private emit(update: BoardUpdate): void {
    for (const listener of this.listeners) listener(update);
  }

  // A store that throws (locked, corrupt, deleted) is reported once per distinct failure; the
  // feed keeps polling and recovers when the store does.
  private guarded<T>(body: () => T, fallback: T): T {
    try {
      const value = body();
      this.lastError = undefined;
      return value;
    } catch (error) {
      const message = `state database unreadable: ${error instanceof Error ? error.message : String(error)}`;
      if (message !== this.lastError) this.log(message);
      this.lastError = message;
      return fallback;
    }
  }
}
