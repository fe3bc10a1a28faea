import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/features/store/database.js';
import {
  AGENT_ID_ALPHABET,
  ALIAS_MAX_CHARS,
  databasePath,
  isAgentId,
  openStore,
  SERVER_STALE_AFTER_MS,
  StoreError,
  SUMMARY_MAX_CHARS,
  type Store,
} from '../../../src/features/store/index.js';
import { SqliteStore } from '../../../src/features/store/sqlite.js';
import { manualClock, tempDir } from './support/temp.js';

function open(stateDir: string, now?: () => number): { store: Store; warnings: string[] } {
  const warnings: string[] = [];
  const store = openStore({ stateDir, warn: (message) => warnings.push(message), now });
  return { store, warnings };
}

function storeError(body: () => unknown): StoreError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('agents', () => {
  it('gives each conversation a four-character id without look-alike characters, unique among many', () => {
    const stateDir = tempDir();
    const a = open(stateDir).store;
    const b = open(stateDir).store; // a second connection, as a second zodexd would have
    const serverA = a.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const serverB = b.registerServer({ transport: 'http', pid: process.pid, mode: 'local' });
    const ids = new Set<string>();
    for (let i = 0; i < 1500; i += 1) {
      ids.add(a.registerAgent(serverA));
      ids.add(b.registerAgent(serverB));
    }
    expect(ids.size).toBe(3000);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z2-9]{4}$/);
      expect(isAgentId(id)).toBe(true);
      expect(id).not.toMatch(/[01ilo]/);
    }
    expect(AGENT_ID_ALPHABET).not.toMatch(/[01ilo]/);
    expect(a.agents({ liveOnly: true })).toHaveLength(3000);
    a.close();
    b.close();
  });

  it('draws again when an id is taken, by any process', () => {
    const stateDir = tempDir();
    const db = openDatabase(stateDir);
    const store = new SqliteStore(db, { now: Date.now });
    expect(store.registerAgent('zsrv', () => 'abcd')).toBe('abcd');
    const draws = ['abcd', 'abcd', 'efgh'];
    expect(store.registerAgent('zsrv', () => draws.shift()!)).toBe('efgh');
    expect(() => store.registerAgent('zsrv', () => 'abcd')).toThrowError(/no free Agent ID/);
    store.close();
  });

  it('lists live agents only while their conversation and server are alive', () => {
    const clock = manualClock();
    const { store } = open(tempDir(), clock.now);
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const first = store.registerAgent(server);
    clock.advance(1);
    const second = store.registerAgent(server);
    store.endAgent(first);
    expect(store.agents({ liveOnly: true }).map((agent) => agent.agentId)).toEqual([second]);
    expect(store.agents().map((agent) => [agent.agentId, agent.live])).toEqual([
      [first, false],
      [second, true],
    ]);
    expect(store.agent(first)?.endedAt).toBe(clock.now());
    expect(store.servers({ liveOnly: true }).map((row) => row.serverId)).toEqual([server]);
    // No heartbeat for longer than the stale limit: the server counts as dead.
    clock.advance(SERVER_STALE_AFTER_MS + 1);
    expect(store.agents({ liveOnly: true })).toEqual([]);
    expect(store.servers()[0]).toMatchObject({ serverId: server, live: false, endedAt: null });
    expect(store.servers({ liveOnly: true })).toEqual([]);
    store.close();
  });

  it('returns the most recent agents when limited, oldest first', () => {
    const clock = manualClock();
    const { store } = open(tempDir(), clock.now);
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const ids = Array.from({ length: 5 }, () => {
      clock.advance(1);
      return store.registerAgent(server);
    });
    expect(store.agents({ limit: 2 }).map((agent) => agent.agentId)).toEqual(ids.slice(3));
    expect(store.agents().map((agent) => agent.agentId)).toEqual(ids);
    store.close();
  });

  it('treats a server whose pid is gone as dead at once, and close() ends its agents', () => {
    const stateDir = tempDir();
    const { store } = open(stateDir);
    const deadPid = 2 ** 22 + 12345; // above Linux's pid_max default range
    const ghost = store.registerServer({ transport: 'stdio', pid: deadPid, mode: 'local' });
    expect(store.servers()[0]).toMatchObject({ serverId: ghost, live: false });
    store.close();
    const reader = open(stateDir).store;
    expect(reader.servers()[0]?.endedAt).not.toBeNull();
    reader.close();
  });
});

describe('aliases', () => {
  it('is last-write-wins between two writers, by the time of the call', () => {
    const stateDir = tempDir();
    const clockA = manualClock(1_000);
    const clockB = manualClock(1_000);
    const a = open(stateDir, clockA.now).store;
    const b = open(stateDir, clockB.now).store;
    const agent = a.registerAgent(a.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));

    clockA.set(2_000);
    a.setAlias(agent, 'Rindle implementation', 'agent');
    clockB.set(3_000);
    b.setAlias(agent, 'Pencil edit', 'operator');
    expect(a.agent(agent)).toMatchObject({ alias: 'Pencil edit', aliasSetAt: 3_000, aliasSetBy: 'operator' });

    // A write made earlier but committed later does not clobber the newer one.
    clockA.set(2_500);
    a.setAlias(agent, 'Stale write', 'agent');
    expect(b.agent(agent)?.alias).toBe('Pencil edit');

    clockA.set(4_000);
    a.setAlias(agent, 'Newest', 'agent');
    expect(b.agent(agent)).toMatchObject({ alias: 'Newest', aliasSetBy: 'agent' });
    a.close();
    b.close();
  });

  it("'' clears; whitespace is collapsed to one line", () => {
    const { store } = open(tempDir());
    const agent = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    store.setAlias(agent, '  Fix\tthe\n\nparser  ', 'agent');
    expect(store.agent(agent)?.alias).toBe('Fix the parser');
    store.setAlias(agent, '', 'agent');
    expect(store.agent(agent)?.alias).toBe('');
    store.setAlias(agent, 'x', 'agent');
    store.setAlias(agent, '   ', 'operator');
    expect(store.agent(agent)?.alias).toBe('');
    store.close();
  });

  it('accepts 80 characters (code points) and rejects 81 with ALIAS_TOO_LONG, leaving the alias', () => {
    const { store, warnings } = open(tempDir());
    const agent = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    const eighty = '🙂'.repeat(ALIAS_MAX_CHARS); // 160 UTF-16 units, 80 characters
    store.setAlias(agent, eighty, 'agent');
    expect(store.agent(agent)?.alias).toBe(eighty);
    const error = storeError(() => store.setAlias(agent, 'a'.repeat(ALIAS_MAX_CHARS + 1), 'agent'));
    expect(error.code).toBe('ALIAS_TOO_LONG');
    expect(error.message).toContain('81');
    expect(store.agent(agent)?.alias).toBe(eighty);
    expect(store.degraded).toBe(false);
    expect(warnings).toEqual([]);
    store.close();
  });

  it('rejects an unknown Agent ID with UNKNOWN_AGENT', () => {
    const { store } = open(tempDir());
    expect(storeError(() => store.setAlias('zzzz', 'x', 'operator')).code).toBe('UNKNOWN_AGENT');
    expect(store.degraded).toBe(false);
    store.close();
  });

  it('is not part of the timeline', () => {
    const { store } = open(tempDir());
    const agent = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    store.setAlias(agent, 'Named', 'agent');
    store.setAlias(agent, 'Renamed', 'operator');
    expect(store.history()).toEqual([]);
    store.close();
  });
});

describe('history', () => {
  function seeded() {
    const clock = manualClock();
    const stateDir = tempDir();
    const { store } = open(stateDir, clock.now);
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const alpha = store.registerAgent(server);
    const beta = store.registerAgent(server);
    store.setAlias(alpha, 'Alpha task', 'agent');
    const t0 = clock.now();
    const record = (agentId: string, summary: string, ms: number, extra: Record<string, unknown> = {}) => {
      const id = store.startInvocation({ agentId, tool: 'exec_command', workdir: '/repo', summary });
      clock.advance(ms);
      store.finishInvocation(id, { resultSummary: `exited 0 after ${ms / 1000}s`, isError: false, exitCode: 0, terminationReason: 'exit', ...extra });
      clock.advance(1_000);
      return id;
    };
    record(alpha, 'git status', 300);
    record(beta, 'npm test', 1_200);
    clock.advance(3_600_000);
    record(alpha, 'npm run build', 45_000, { outputFile: '/tmp/zodex-0/out-1.txt' });
    const patch = store.startInvocation({ agentId: beta, tool: 'apply_patch', workdir: '/repo', summary: 'update src/a.ts, add src/b.ts' });
    store.finishInvocation(patch, { resultSummary: '1 of 2 operations failed', isError: true });
    return { store, clock, alpha, beta, server, t0, stateDir };
  }

  it('records every field and returns rows oldest first', () => {
    const { store, alpha } = seeded();
    const rows = store.history();
    expect(rows.map((row) => row.summary)).toEqual(['git status', 'npm test', 'npm run build', 'update src/a.ts, add src/b.ts']);
    expect(rows[2]).toMatchObject({
      kind: 'invocation',
      actor: 'agent',
      agentId: alpha,
      agentAlias: 'Alpha task',
      tool: 'exec_command',
      workdir: '/repo',
      durationMs: 45_000,
      status: 'ok',
      exitCode: 0,
      terminationReason: 'exit',
      outputFile: '/tmp/zodex-0/out-1.txt',
      resultSummary: 'exited 0 after 45s',
    });
    expect(rows[3]).toMatchObject({ tool: 'apply_patch', status: 'error', isError: true, exitCode: null });
    store.close();
  });

  it('filters by agent, by time and by count', () => {
    const { store, alpha, beta, t0 } = seeded();
    expect(store.history({ agentId: alpha }).map((row) => row.summary)).toEqual(['git status', 'npm run build']);
    expect(store.history({ agentId: beta }).map((row) => row.summary)).toEqual(['npm test', 'update src/a.ts, add src/b.ts']);
    expect(store.history({ sinceMs: t0 + 3_600_000 }).map((row) => row.summary)).toEqual(['npm run build', 'update src/a.ts, add src/b.ts']);
    expect(store.history({ limit: 1 }).map((row) => row.summary)).toEqual(['update src/a.ts, add src/b.ts']);
    expect(store.history({ agentId: alpha, sinceMs: t0 + 3_600_000, limit: 5 }).map((row) => row.summary)).toEqual(['npm run build']);
    expect(store.history({ agentId: 'zzzz' })).toEqual([]);
    store.close();
  });

  it('shows an unfinished invocation as running while its server lives, interrupted after', () => {
    const clock = manualClock();
    const { store } = open(tempDir(), clock.now);
    const alpha = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    store.startInvocation({ agentId: alpha, tool: 'write_stdin', summary: 'poll' });
    expect(store.history().at(-1)).toMatchObject({ status: 'running', endedAt: null, durationMs: null });
    clock.advance(SERVER_STALE_AFTER_MS + 1);
    expect(store.history().at(-1)?.status).toBe('interrupted');
    store.close();
  });

  it('records operator actions as the operator, attributed to the session’s agent', () => {
    const { store, alpha, server } = seeded();
    store.sessionStarted({ sessionId: 's0123456789ab', agentId: alpha, serverId: server, pid: 4242, cmd: 'python3 -i', cwd: '/repo/py' });
    store.operatorAction({ sessionId: 's0123456789ab', action: 'input', detail: 'print(1)\n' });
    store.operatorAction({ sessionId: 's0123456789ab', action: 'kill' });
    const operator = store.history({ agentId: alpha }).filter((row) => row.actor === 'operator');
    expect(operator).toMatchObject([
      { kind: 'operator_action', tool: 'operator.input', summary: 'print(1)\n', agentId: alpha, sessionId: 's0123456789ab', workdir: '/repo/py' },
      { kind: 'operator_action', tool: 'operator.kill', agentId: alpha },
    ]);
    store.close();
  });

  it('clips long summaries and never stores a session handle field', () => {
    const { store, alpha } = seeded();
    const id = store.startInvocation({ agentId: alpha, tool: 'exec_command', summary: 'x'.repeat(SUMMARY_MAX_CHARS * 2) });
    store.finishInvocation(id, { resultSummary: 'ok', isError: false, sessionId: 'sabcdef012345' });
    const row = store.history().at(-1)!;
    expect([...row.summary]).toHaveLength(SUMMARY_MAX_CHARS);
    expect(row.summary.endsWith('…')).toBe(true);
    expect(row.sessionId).toBe('sabcdef012345');
    const db = new Database(store.databasePath, { readonly: true });
    const columns = (
      db.prepare("SELECT name FROM pragma_table_info('invocations') UNION SELECT name FROM pragma_table_info('sessions')").all() as { name: string }[]
    ).map((c) => c.name);
    db.close();
    expect(columns.some((name) => /handle/.test(name))).toBe(false);
    expect(columns.some((name) => /^output$/.test(name))).toBe(false);
    store.close();
  });
});

describe('sessions, servers, publications', () => {
  it('tracks running sessions of every server and marks a dead server’s as lost', () => {
    const clock = manualClock();
    const stateDir = tempDir();
    const { store } = open(stateDir, clock.now);
    const server = store.registerServer({ transport: 'http', pid: process.pid, mode: 'local' });
    const agent = store.registerAgent(server);
    store.sessionStarted({ sessionId: 'sa', agentId: agent, serverId: server, pid: 100, cmd: 'npm run dev', cwd: '/app' });
    store.sessionStarted({ sessionId: 'sb', agentId: agent, serverId: server, pid: 101, cmd: 'sleep 1', cwd: '/app' });
    clock.advance(1_000);
    store.sessionEnded('sb', { exitCode: 0, terminationReason: 'exit' });
    store.sessionEnded('sb', { exitCode: 9, terminationReason: 'killed' }); // a second report does not rewrite the first
    expect(store.sessions({ runningOnly: true }).map((s) => s.sessionId)).toEqual(['sa']);
    expect(store.sessions()).toMatchObject([
      { sessionId: 'sa', state: 'running', cmd: 'npm run dev', pid: 100 },
      { sessionId: 'sb', state: 'exited', exitCode: 0, terminationReason: 'exit', endedAt: clock.now() },
    ]);
    clock.advance(SERVER_STALE_AFTER_MS + 1);
    expect(store.sessions().map((s) => s.state)).toEqual(['lost', 'exited']);
    expect(store.sessions({ runningOnly: true })).toEqual([]);
    store.close();
  });

  it('records publications for the publisher', () => {
    const { store } = open(tempDir());
    store.recordPublication({
      agentId: 'k7pq',
      repository: 'acme/app',
      branch: 'zodex/k7pq',
      commit: 'deadbeef',
      prUrl: 'https://example.test/pr/1',
      outcome: 'published',
      mode: 'sprite',
    });
    store.recordPublication({
      repository: 'acme/app',
      branch: 'main',
      commit: 'cafe',
      outcome: 'refused',
      error: 'direct push to main is off',
      mode: 'sprite',
    });
    expect(store.publications()).toMatchObject([
      {
        agentId: 'k7pq',
        repository: 'acme/app',
        branch: 'zodex/k7pq',
        commit: 'deadbeef',
        prUrl: 'https://example.test/pr/1',
        outcome: 'published',
        error: null,
        mode: 'sprite',
      },
      { agentId: null, outcome: 'refused', error: 'direct push to main is off' },
    ]);
    const bad = storeError(() => store.recordPublication({ repository: '', branch: 'b', commit: 'c', outcome: 'published', mode: 'local' }));
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(store.degraded).toBe(false);
    store.close();
  });
});

describe('change cursor', () => {
  it('increases on every kind of change, not on heartbeats', async () => {
    const { store } = openWithHeartbeat(tempDir(), 10);
    let cursor = store.changeCursor();
    const expectBump = (what: string) => {
      const next = store.changeCursor();
      expect(next, what).toBeGreaterThan(cursor);
      cursor = next;
    };
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    expectBump('registerServer');
    const agent = store.registerAgent(server);
    expectBump('registerAgent');
    store.setAlias(agent, 'named', 'agent');
    expectBump('setAlias');
    const id = store.startInvocation({ agentId: agent, tool: 'exec_command', summary: 'ls' });
    expectBump('startInvocation');
    store.finishInvocation(id, { resultSummary: 'ok', isError: false });
    expectBump('finishInvocation');
    store.sessionStarted({ sessionId: 's1', agentId: agent, serverId: server, pid: 1, cmd: 'x', cwd: '/' });
    expectBump('sessionStarted');
    store.sessionEnded('s1', {});
    expectBump('sessionEnded');
    store.operatorAction({ sessionId: 's1', action: 'kill' });
    expectBump('operatorAction');
    store.recordPublication({ repository: 'r', branch: 'b', commit: 'c', outcome: 'failed', mode: 'local' });
    expectBump('recordPublication');
    store.endAgent(agent);
    expectBump('endAgent');

    const db = new Database(store.databasePath, { readonly: true });
    const heartbeatBefore = (db.prepare('SELECT heartbeat_at FROM servers').get() as { heartbeat_at: number }).heartbeat_at;
    await new Promise((resolve) => setTimeout(resolve, 80));
    const heartbeatAfter = (db.prepare('SELECT heartbeat_at FROM servers').get() as { heartbeat_at: number }).heartbeat_at;
    db.close();
    expect(heartbeatAfter).toBeGreaterThan(heartbeatBefore);
    expect(store.changeCursor()).toBe(cursor);
    store.close();
  });

  it('is cheap enough for a Liveboard to poll several times a second', () => {
    const { store } = open(tempDir());
    const agent = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    for (let i = 0; i < 2_000; i += 1) store.startInvocation({ agentId: agent, tool: 'exec_command', summary: `c${i}` });
    const started = performance.now();
    for (let i = 0; i < 2_000; i += 1) store.changeCursor();
    const perCallMs = (performance.now() - started) / 2_000;
    expect(perCallMs).toBeLessThan(1); // typically a few microseconds
    store.close();
  });

  it('lists changes since a cursor in pages, and asks for a reload after pruning', () => {
    const { store } = open(tempDir());
    const start = store.changeCursor();
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const agent = store.registerAgent(server);
    store.setAlias(agent, 'one', 'agent');
    store.setAlias(agent, 'two', 'operator');
    const all = store.changesSince(start);
    expect(all).toMatchObject({ reset: false, more: false });
    expect(all.changes.map((change) => [change.kind, change.ref])).toEqual([
      ['server', server],
      ['agent', agent],
      ['agent', agent],
      ['agent', agent],
    ]);
    const page = store.changesSince(start, 3);
    expect(page.changes).toHaveLength(3);
    expect(page.more).toBe(true);
    const rest = store.changesSince(page.cursor, 3);
    expect(rest).toMatchObject({ more: false, reset: false, cursor: all.cursor });
    expect(rest.changes).toHaveLength(1);
    expect(store.changesSince(all.cursor)).toEqual({ cursor: all.cursor, changes: [], reset: false, more: false });
    expect(store.changesSince(all.cursor + 100).reset).toBe(true);

    const db = new Database(store.databasePath);
    db.prepare('DELETE FROM change_log WHERE seq <= ?').run(all.cursor - 1);
    db.close();
    expect(store.changesSince(start)).toMatchObject({ reset: true, cursor: all.cursor, changes: [] });
    store.close();
  });
});

function openWithHeartbeat(stateDir: string, heartbeatIntervalMs: number) {
  const warnings: string[] = [];
  const store = openStore({ stateDir, warn: (message) => warnings.push(message), heartbeatIntervalMs });
  return { store, warnings };
}

describe('database file', () => {
  it('is zodex.db in the state dir', () => {
    const stateDir = tempDir();
    const { store } = open(stateDir);
    expect(store.databasePath).toBe(databasePath(stateDir));
    expect(store.databasePath.endsWith('/zodex.db')).toBe(true);
    store.close();
  });
});
