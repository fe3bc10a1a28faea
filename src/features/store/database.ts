// Opening the one SQLite file under the state dir: a private directory and file, WAL so readers
// never block the writer, a busy timeout so concurrent zodexd processes queue instead of failing,
// then the migrations. Throws; the caller decides whether a failure degrades or exits.

import fs from 'node:fs';
import { mkdirpSync } from '../../fsutil.js';
import path from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { migrate } from './schema.js';

export const DATABASE_FILE_NAME = 'zodex.db';
// How long a write waits for another process's write to finish before it is an error. Writes
// here take well under a millisecond, so this only expires when something holds the lock on
// purpose (a stuck process, an open `sqlite3` shell): better-sqlite3 is synchronous, so this
// is also the longest the event loop can stall on the store, once, before it degrades.
export const DEFAULT_BUSY_TIMEOUT_MS = 2_000;
const STATE_DIR_MODE = 0o700; // the database holds commands: keep it to the user
const DATABASE_FILE_MODE = 0o600;

// Loads SQLite's native driver now (better-sqlite3 loads it at the first open and keeps it): for a
// process about to lose the right to read it (`zodex publisher --user` from a checkout its user
// cannot enter).
export function loadDatabaseDriver(): void {
  new Database(':memory:').close();
}

export function databasePath(stateDir: string): string {
  return path.join(stateDir, DATABASE_FILE_NAME);
}

export interface OpenDatabaseOptions {
  busyTimeoutMs?: number;
  // Readers (the zodex CLI) do not create a database that does not exist.
  mustExist?: boolean;
}

export function openDatabase(stateDir: string, options: OpenDatabaseOptions = {}): Database.Database {
  const file = databasePath(stateDir);
  if (options.mustExist) {
    if (!fs.existsSync(file)) throw new StoreError('NO_DATABASE', `no state database at ${file} yet (zodexd creates it on first use)`);
  } else {
    mkdirpSync(stateDir, STATE_DIR_MODE);
    // Create the file ourselves so it is private from the first byte; SQLite gives its -wal and
    // -shm files the same mode.
    fs.closeSync(fs.openSync(file, 'a', DATABASE_FILE_MODE));
  }
  const db = new Database(file, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS, fileMustExist: true });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL'); // WAL + NORMAL: durable across process crashes, fast commits
    db.pragma('foreign_keys = OFF'); // observability: a missing parent row must not lose a record
    migrate(db, undefined, file);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
