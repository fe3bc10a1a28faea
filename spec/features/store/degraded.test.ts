// The store is observability, not a dependency: when the database is unwritable, corrupt or
// locked, every tools-facing call still returns, and exactly one warning is printed.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databasePath, isAgentId, openStore, StoreError, type Store } from '../../../src/features/store/index.js';
import { tempDir } from './support/temp.js';

// Every method a tool, the server or the Liveboard calls, twice over; none may throw.
function exerciseEverything(store: Store): void {
  for (let round = 0; round < 2; round += 1) {
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    expect(server).toMatch(/^z[0-9a-f]{12}$/);
    const agent = store.registerAgent(server);
    expect(isAgentId(agent)).toBe(true);
    store.setAlias(agent, 'still works', 'agent');
    store.setAlias(agent, '', 'operator');
    const id = store.startInvocation({ agentId: agent, tool: 'exec_command', workdir: '/tmp', summary: 'ls' });
    store.finishInvocation(id, { resultSummary: 'exited 0', isError: false, exitCode: 0, terminationReason: 'exit', sessionId: 's1' });
    store.sessionStarted({ sessionId: `s${round}`, agentId: agent, serverId: server, pid: 1, cmd: 'sleep 1', cwd: '/tmp' });
    store.sessionEnded(`s${round}`, { exitCode: 0 });
    store.operatorAction({ sessionId: `s${round}`, action: 'input', detail: 'y\n' });
    store.recordPublication({ repository: 'r', branch: 'b', commit: 'c', outcome: 'published', mode: 'local' });
    store.history({ agentId: agent, sinceMs: 0, limit: 10 });
    store.agents({ liveOnly: true });
    store.agent(agent);
    store.sessions({ runningOnly: true });
    store.servers();
    store.publications();
    store.changeCursor();
    store.changesSince(0);
    store.endAgent(agent);
  }
}

function openCollecting(stateDir: string, busyTimeoutMs?: number) {
  const warnings: string[] = [];
  const store = openStore({ stateDir, warn: (message) => warnings.push(message), busyTimeoutMs });
  return { store, warnings };
}

describe('degraded store', () => {
  it('works as a no-op when the state dir cannot be created, with one warning', () => {
    const blocker = path.join(tempDir(), 'a-file');
    fs.writeFileSync(blocker, 'not a directory');
    const { store, warnings } = openCollecting(path.join(blocker, 'zodex'));
    expect(store.degraded).toBe(true);
    expect(() => exerciseEverything(store)).not.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot be written; check the permissions of the state dir or pass --state-dir/);
    expect(warnings[0]).toContain('tools keep working');
    expect(store.degradedReason).toBe(warnings[0]);
    store.close();
  });

  // (A read-only state dir would prove nothing to root, whom permissions do not stop, and CI
  // runs as root: a folder where the database file should be cannot be written by anyone.)
  it('works as a no-op when the database file cannot be opened for writing', () => {
    const stateDir = tempDir();
    fs.mkdirSync(databasePath(stateDir));
    const { store, warnings } = openCollecting(stateDir);
    expect(store.degraded).toBe(true);
    expect(() => exerciseEverything(store)).not.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tools keep working');
  });

  it('works as a no-op on a corrupt database file and leaves the file as it was', () => {
    const stateDir = tempDir();
    const file = databasePath(stateDir);
    const garbage = Buffer.alloc(16_384, 0x5a);
    fs.writeFileSync(file, garbage);
    const { store, warnings } = openCollecting(stateDir);
    expect(store.degraded).toBe(true);
    expect(() => exerciseEverything(store)).not.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`it is corrupt; move it aside (mv ${file} ${file}.bad)`);
    store.close();
    expect(fs.readFileSync(file).equals(garbage)).toBe(true);
  });

  it('degrades once when the database is locked by another process, and stops waiting after that', () => {
    const stateDir = tempDir();
    const { store, warnings } = openCollecting(stateDir, 100);
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const agent = store.registerAgent(server);
    expect(store.degraded).toBe(false);

    const locker = new Database(databasePath(stateDir));
    locker.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      // the write is queued, then written on the next turn (here: at once) and finds the lock
      expect(store.startInvocation({ agentId: agent, tool: 'exec_command', summary: 'ls' })).toBeGreaterThan(0);
      store.flush();
      expect(Date.now() - started).toBeGreaterThanOrEqual(90); // it waited the busy timeout once
      expect(store.degraded).toBe(true);
      const after = Date.now();
      expect(() => exerciseEverything(store)).not.toThrow();
      expect(Date.now() - after).toBeLessThan(90); // no more waiting: it is a no-op now
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('it is locked by another process');
    expect(warnings[0]).toContain('SQLITE_BUSY');
    store.close();
  });

  it('degrades at open when another process holds the database locked from the start', () => {
    const stateDir = tempDir();
    const locker = new Database(databasePath(stateDir)); // a rollback-journal database, as left by some other tool
    locker.exec('CREATE TABLE foreign_tool (x); BEGIN EXCLUSIVE; INSERT INTO foreign_tool VALUES (1);');
    try {
      const { store, warnings } = openCollecting(stateDir, 100);
      expect(store.degraded).toBe(true);
      expect(() => exerciseEverything(store)).not.toThrow();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('locked by another process');
      store.close();
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
  });

  it('keeps Agent IDs unique and aliases in memory once degraded', () => {
    const blocker = path.join(tempDir(), 'file');
    fs.writeFileSync(blocker, '');
    const { store } = openCollecting(path.join(blocker, 'x'));
    const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    const ids = new Set(Array.from({ length: 2000 }, () => store.registerAgent(server)));
    expect(ids.size).toBe(2000);
    const [first] = ids;
    store.setAlias(first!, 'offline label', 'agent');
    expect(store.agent(first!)).toMatchObject({ alias: 'offline label', live: true });
    store.endAgent(first!);
    expect(store.agents({ liveOnly: true })).toHaveLength(1999);
    expect(store.startInvocation({ agentId: first!, tool: 'exec_command', summary: 'x' })).toBe(-1);
    expect(store.history()).toEqual([]);
    store.close();
  });

  it('still rejects a too-long alias when degraded (a caller error, not a database one)', () => {
    const blocker = path.join(tempDir(), 'file');
    fs.writeFileSync(blocker, '');
    const { store, warnings } = openCollecting(path.join(blocker, 'x'));
    const agent = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    expect(() => store.setAlias(agent, 'a'.repeat(81), 'agent')).toThrowError(StoreError);
    expect(warnings).toHaveLength(1);
    store.close();
  });

  it('survives a warn callback that throws', () => {
    const blocker = path.join(tempDir(), 'file');
    fs.writeFileSync(blocker, '');
    const store = openStore({
      stateDir: path.join(blocker, 'x'),
      warn: () => {
        throw new Error('stderr is gone');
      },
    });
    expect(store.degraded).toBe(true);
    expect(() => exerciseEverything(store)).not.toThrow();
  });

  it('is a no-op after close, without degrading', () => {
    const { store, warnings } = openCollecting(tempDir());
    store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
    store.close();
    store.close();
    expect(() => exerciseEverything(store)).not.toThrow();
    expect(store.degraded).toBe(false);
    expect(warnings).toEqual([]);
  });
});
