// The schema as an ordered list of migrations, and the runner that brings a database up to date.
// The version lives in SQLite's `PRAGMA user_version`; a database newer than MIGRATIONS is refused.
// Every migration runs in one IMMEDIATE transaction, so concurrent openers migrate exactly once.

import type { Database } from 'better-sqlite3';
import { StoreError } from './errors.js';
import { OAUTH_AUDIENCE_SQL, OAUTH_TABLES_SQL } from './oauth-schema.js';

export interface Migration {
  version: number; // 1, 2, … in order, no gaps
  name: string;
  sql: string;
}

// Times are integer milliseconds since the Unix epoch; ids are opaque text.
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'servers, agents, invocations, sessions',
    sql: `
      CREATE TABLE servers (
        id           TEXT PRIMARY KEY,
        pid          INTEGER NOT NULL,
        hostname     TEXT NOT NULL,
        transport    TEXT NOT NULL,
        mode         TEXT NOT NULL,
        started_at   INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL,
        ended_at     INTEGER
      );
      CREATE TABLE agents (
        id           TEXT PRIMARY KEY,          -- the four-character Agent ID, never reused
        server_id    TEXT NOT NULL,
        started_at   INTEGER NOT NULL,
        ended_at     INTEGER,
        alias        TEXT NOT NULL DEFAULT '',  -- '' = no alias
        alias_set_at INTEGER,                   -- last-write-wins clock
        alias_set_by TEXT                       -- 'agent' | 'operator'
      );
      CREATE INDEX agents_server ON agents (server_id);
      CREATE TABLE invocations (
        id                 INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id           TEXT NOT NULL,
        server_id          TEXT,
        tool               TEXT NOT NULL,
        workdir            TEXT,
        summary            TEXT NOT NULL,       -- the command, or a patch summary
        started_at         INTEGER NOT NULL,
        ended_at           INTEGER,
        result_summary     TEXT,
        is_error           INTEGER,
        exit_code          INTEGER,
        termination_reason TEXT,
        session_id         TEXT,                -- opaque session id, never a session handle
        output_file        TEXT                 -- the spill file path; output itself is not stored
      );
      CREATE INDEX invocations_started ON invocations (started_at);
      CREATE INDEX invocations_agent ON invocations (agent_id, started_at);
      CREATE TABLE sessions (
        id                 TEXT PRIMARY KEY,    -- opaque session id, never a session handle
        agent_id           TEXT NOT NULL,
        server_id          TEXT NOT NULL,
        pid                INTEGER,
        cmd                TEXT NOT NULL,
        cwd                TEXT NOT NULL,
        started_at         INTEGER NOT NULL,
        ended_at           INTEGER,
        exit_code          INTEGER,
        termination_reason TEXT
      );
      CREATE INDEX sessions_running ON sessions (started_at) WHERE ended_at IS NULL;
      CREATE INDEX sessions_started ON sessions (started_at);
    `,
  },
  {
    version: 2,
    name: 'operator actions, publications, change log',
    sql: `
      CREATE TABLE operator_actions (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        at         INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        agent_id   TEXT,                        -- the agent whose session it was
        server_id  TEXT,                        -- the process that recorded it
        action     TEXT NOT NULL,               -- 'input' | 'kill'
        detail     TEXT
      );
      CREATE INDEX operator_actions_at ON operator_actions (at);
      CREATE TABLE publications (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        at         INTEGER NOT NULL,
        agent_id   TEXT,
        server_id  TEXT,
        mode       TEXT NOT NULL,
        repository TEXT NOT NULL,
        branch     TEXT NOT NULL,
        commit_sha TEXT NOT NULL,
        pr_url     TEXT,
        outcome    TEXT NOT NULL,               -- 'published' | 'refused' | 'failed'
        error      TEXT
      );
      CREATE INDEX publications_at ON publications (at);

      -- Every committed change, from any process, appends here (triggers, so no writer can
      -- forget); a Liveboard polls max(seq). Heartbeats are not changes.
      CREATE TABLE change_log (
        seq  INTEGER PRIMARY KEY AUTOINCREMENT,
        at   INTEGER NOT NULL,
        kind TEXT NOT NULL,                     -- server | agent | invocation | session | operator_action | publication
        ref  TEXT NOT NULL                      -- the changed row's id
      );
      ${changeTrigger('servers', 'server', 'INSERT')}
      ${changeTrigger('servers', 'server', 'UPDATE OF ended_at')}
      ${changeTrigger('agents', 'agent', 'INSERT')}
      ${changeTrigger('agents', 'agent', 'UPDATE')}
      ${changeTrigger('invocations', 'invocation', 'INSERT')}
      ${changeTrigger('invocations', 'invocation', 'UPDATE')}
      ${changeTrigger('sessions', 'session', 'INSERT')}
      ${changeTrigger('sessions', 'session', 'UPDATE')}
      ${changeTrigger('operator_actions', 'operator_action', 'INSERT')}
      ${changeTrigger('publications', 'publication', 'INSERT')}
    `,
  },
  {
    version: 3,
    name: 'OAuth clients, grants, token hashes, pairing codes',
    sql: OAUTH_TABLES_SQL,
  },
  {
    version: 4,
    name: 'OAuth: the zodexd each grant is for, where each registration came from',
    sql: OAUTH_AUDIENCE_SQL,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

function changeTrigger(table: string, kind: string, event: 'INSERT' | 'UPDATE' | `UPDATE OF ${string}`): string {
  const name = `${table}_${event.split(' ')[0]!.toLowerCase()}_changes`;
  return `CREATE TRIGGER ${name} AFTER ${event} ON ${table} BEGIN
    INSERT INTO change_log (at, kind, ref) VALUES (CAST(unixepoch('subsec') * 1000 AS INTEGER), '${kind}', CAST(NEW.id AS TEXT));
  END;`;
}

export interface MigrationResult {
  from: number;
  to: number;
}

// Brings `db` to the last of `migrations` (tests pass a prefix to build an old database).
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS, file = db.name): MigrationResult {
  const latest = migrations.length;
  const readVersion = () => db.pragma('user_version', { simple: true }) as number;
  const tooNew = (found: number) =>
    new StoreError(
      'SCHEMA_TOO_NEW',
      `state database ${file} has schema version ${found}, newer than this zodex knows (${latest}); ` +
        'upgrade zodex, or point --state-dir at another directory',
    );
  // Cheap check without a write lock: most opens find the database current.
  const seen = readVersion();
  if (seen > latest) throw tooNew(seen);
  if (seen === latest) return { from: seen, to: seen };
  return db
    .transaction((): MigrationResult => {
      const from = readVersion(); // re-read under the lock: another process may have migrated
      if (from > latest) throw tooNew(from);
      for (const migration of migrations.slice(from)) {
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
      }
      return { from, to: latest };
    })
    .immediate();
}
