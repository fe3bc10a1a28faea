import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { databasePath, MIGRATIONS, migrate, openStore, openStoreReader, SCHEMA_VERSION, StoreError } from '../../../src/features/store/index.js';
import { manualClock, tempDir } from './support/temp.js';

function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map(
      (row) => row.name,
    );
  } finally {
    db.close();
  }
}

function userVersion(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

describe('schema migrations', () => {
  it('numbers migrations 1..n in order', () => {
    expect(MIGRATIONS.map((migration) => migration.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('creates a fresh database at the latest version, in WAL mode, private to the user', () => {
    const stateDir = path.join(tempDir(), 'state', 'zodex');
    const warnings: string[] = [];
    const store = openStore({ stateDir, warn: (message) => warnings.push(message) });
    expect(store.degraded).toBe(false);
    store.close();
    const file = databasePath(stateDir);
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
    expect(tables(file)).toEqual(
      [
        'agents',
        'change_log',
        'invocations',
        'oauth_clients',
        'oauth_grants',
        'oauth_pairing_codes',
        'oauth_tokens',
        'operator_actions',
        'publications',
        'servers',
        'sessions',
      ].sort(),
    );
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(warnings).toEqual([]);
  });

  it('migrates a version-1 database, keeping its rows', () => {
    const stateDir = tempDir();
    const file = databasePath(stateDir);
    const old = new Database(file);
    migrate(old, MIGRATIONS.slice(0, 1));
    expect(old.pragma('user_version', { simple: true })).toBe(1);
    old.prepare("INSERT INTO servers VALUES ('zold', 1, 'elsewhere', 'stdio', 'local', 1000, 1000, 2000)").run();
    old
      .prepare(
        "INSERT INTO agents (id, server_id, started_at, ended_at, alias, alias_set_at, alias_set_by) VALUES ('kq7p', 'zold', 1000, 2000, 'Old work', 1500, 'agent')",
      )
      .run();
    old
      .prepare(
        "INSERT INTO invocations (agent_id, server_id, tool, workdir, summary, started_at, ended_at, result_summary, is_error, exit_code, termination_reason) VALUES ('kq7p', 'zold', 'exec_command', '/srv', 'make', 1100, 1300, 'exited 0 after 0.2s', 0, 0, 'exit')",
      )
      .run();
    old.close();

    const clock = manualClock(10_000);
    const warnings: string[] = [];
    const store = openStore({ stateDir, warn: (message) => warnings.push(message), now: clock.now });
    expect(warnings).toEqual([]);
    expect(store.degraded).toBe(false);
    expect(userVersion(file)).toBe(SCHEMA_VERSION);
    expect(store.agents()).toMatchObject([{ agentId: 'kq7p', alias: 'Old work', endedAt: 2000, live: false, invocations: 1 }]);
    expect(store.history()).toMatchObject([{ agentId: 'kq7p', tool: 'exec_command', summary: 'make', durationMs: 200, exitCode: 0, status: 'ok' }]);
    // What version 2 added works on the migrated file.
    const before = store.changeCursor();
    store.setAlias('kq7p', 'Renamed', 'operator');
    expect(store.changeCursor()).toBeGreaterThan(before);
    store.recordPublication({ repository: 'o/r', branch: 'main', commit: 'abc123', outcome: 'published', mode: 'local' });
    expect(store.publications()).toHaveLength(1);
    store.close();
  });

  it('runs nothing on a database that is already current', () => {
    const stateDir = tempDir();
    openStore({ stateDir, warn: () => {} }).close();
    const db = new Database(databasePath(stateDir));
    expect(migrate(db)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
    db.close();
  });

  it('refuses a database from a newer zodex: degraded, one clear warning, file untouched', () => {
    const stateDir = tempDir();
    openStore({ stateDir, warn: () => {} }).close();
    const file = databasePath(stateDir);
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();

    const warnings: string[] = [];
    const store = openStore({ stateDir, warn: (message) => warnings.push(message) });
    expect(store.degraded).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`schema version ${SCHEMA_VERSION + 1}, newer than this zodex knows (${SCHEMA_VERSION})`);
    expect(warnings[0]).toContain(file);
    expect(warnings[0]).toContain('tools keep working');
    expect(store.startInvocation({ agentId: 'abcd', tool: 'exec_command', summary: 'ls' })).toBe(-1);
    store.close();
    expect(userVersion(file)).toBe(SCHEMA_VERSION + 1);

    // A reader (the CLI) gets the typed error instead.
    expect(() => openStoreReader(stateDir)).toThrowError(StoreError);
    try {
      openStoreReader(stateDir);
    } catch (error) {
      expect((error as StoreError).code).toBe('SCHEMA_TOO_NEW');
    }
  });
});
