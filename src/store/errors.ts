// The store's typed errors and the one warning text a failing database produces.
// Validation errors (a caller's mistake) are thrown to the caller; every other failure is an
// environment problem that turns the store into a no-op (see safe.ts), announced once.

import { ZodexError } from '../errors.js';

export type StoreErrorCode =
  | 'ALIAS_TOO_LONG' // set_agent_alias: more than ALIAS_MAX_CHARS characters
  | 'UNKNOWN_AGENT' // setAlias on an Agent ID the database has never seen
  | 'INVALID_ARGUMENT' // a malformed value from a caller (e.g. an empty repository name)
  | 'SCHEMA_TOO_NEW' // the database was written by a newer zodex
  | 'NO_DATABASE' // a reader (the zodex CLI) found no database yet
  | 'STORE_UNAVAILABLE'; // the database cannot be opened, read or written

// Codes that describe the caller's input: thrown through the no-op wrapper, never degrade it.
export const VALIDATION_CODES: ReadonlySet<StoreErrorCode> = new Set(['ALIAS_TOO_LONG', 'UNKNOWN_AGENT', 'INVALID_ARGUMENT']);

export class StoreError extends ZodexError {
  constructor(
    override readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message);
    this.name = 'StoreError';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

export function isValidationError(error: unknown): error is StoreError {
  return error instanceof StoreError && VALIDATION_CODES.has(error.code);
}

// One line saying what broke and what to do about it; `file` is the database path.
export function describeStoreFailure(error: unknown, file: string): string {
  if (error instanceof StoreError && error.code !== 'STORE_UNAVAILABLE') return error.message;
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : '';
  const message = error instanceof Error ? error.message : String(error);
  const detail = code && !message.includes(code) ? `${code}: ${message}` : message;
  let hint: string;
  if (/^SQLITE_BUSY|^SQLITE_LOCKED/.test(code)) hint = 'it is locked by another process';
  else if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) hint = `it is corrupt; move it aside (mv ${file} ${file}.bad) and restart`;
  else if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)|^E(ACCES|PERM|ROFS|NOTDIR|EXIST)$/.test(code)) {
    hint = 'it cannot be written; check the permissions of the state dir or pass --state-dir';
  } else if (/^SQLITE_(FULL|IOERR)|^ENOSPC$/.test(code)) hint = 'the disk is full or failing';
  else hint = 'it failed';
  return `state database ${file} is unusable: ${hint} (${detail})`;
}
