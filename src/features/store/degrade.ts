// The degrade guard: one SQLite store whose first failure (locked, corrupt, unwritable, too new)
// prints ONE warning, closes the database and turns every later call into its fallback, so a
// broken database never breaks a tool call. Validation errors (ALIAS_TOO_LONG …) pass through.

import { describeStoreFailure, isValidationError } from './errors.js';
import type { SqliteStore } from './sqlite.js';

const OFF_NOTE = 'history, agent aliases and the Liveboard feed are off for this zodex process; tools keep working';

export class DegradeGuard {
  private backend: SqliteStore | undefined;
  private failure: string | undefined;
  private closed = false;

  // open: builds the store (its failure degrades at once); onDegrade: stops what uses it.
  constructor(
    private readonly databasePath: string,
    private readonly warn: (message: string) => void,
    open: () => SqliteStore,
    private readonly onDegrade: () => void,
  ) {
    try {
      this.backend = open();
    } catch (error) {
      this.degrade(error);
    }
  }

  // Why the store is off, once it is (undefined while it works).
  get reason(): string | undefined {
    return this.failure;
  }

  // True while calls still reach the database.
  get usable(): boolean {
    return this.backend !== undefined && !this.closed;
  }

  // Runs `body` on the database; on failure degrades once and answers `fallback()`.
  run<T>(fallback: () => T, body: (backend: SqliteStore) => T): T {
    const backend = this.backend;
    if (!backend || this.closed) return fallback();
    try {
      return body(backend);
    } catch (error) {
      if (isValidationError(error)) throw error;
      this.degrade(error);
      return fallback();
    }
  }

  private degrade(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = `${describeStoreFailure(error, this.databasePath)}; ${OFF_NOTE}`;
    this.onDegrade();
    const backend = this.backend;
    this.backend = undefined;
    try {
      backend?.close();
    } catch {
      // already broken
    }
    try {
      this.warn(this.failure);
    } catch {
      // a broken stderr must not break a tool call either
    }
  }

  // Every later call answers its fallback; the database is closed. Idempotent.
  close(): void {
    this.closed = true;
    try {
      this.backend?.close();
    } catch {
      // nothing left to do
    }
    this.backend = undefined;
  }
}
