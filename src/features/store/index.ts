// zodex's state: one SQLite database under the state dir holding agents and aliases, the
// invocation history, running sessions, server instances, operator actions and publications.
// zodexd (app/runtime.ts) gets openStore() (never throws, degrades to a no-op); the zodex CLI gets openStoreReader().

import { openDatabase, type OpenDatabaseOptions } from './database.js';
import { SafeStore, type OpenStoreOptions } from './safe.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export type * from './types.js';
export type { OpenStoreOptions } from './safe.js';
export { StoreError, describeStoreFailure } from './errors.js';
export { databasePath, loadDatabaseDriver } from './database.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate } from './schema.js';
export { AGENT_ID_ALPHABET, ALIAS_MAX_CHARS, isAgentId, normalizeAlias } from './identity.js';
export { SERVER_STALE_AFTER_MS } from './liveness.js';
export { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT, SUMMARY_MAX_CHARS, SqliteStore } from './sqlite.js';

// For zodexd: never throws; on any database failure warns once through `warn` and degrades.
export function openStore(options: OpenStoreOptions): Store {
  return new SafeStore(options);
}

// For readers that should fail loudly (the zodex CLI): throws StoreError NO_DATABASE when there
// is no database yet, SCHEMA_TOO_NEW, or the SQLite error. Migrates an older database.
export function openStoreReader(stateDir: string, options: { now?: () => number; busyTimeoutMs?: number } = {}): SqliteStore {
  const openOptions: OpenDatabaseOptions = { busyTimeoutMs: options.busyTimeoutMs, mustExist: true };
  return new SqliteStore(openDatabase(stateDir, openOptions), { now: options.now ?? Date.now });
}
