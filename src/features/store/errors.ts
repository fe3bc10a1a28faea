// The store's typed errors and the one warning text a failing database produces.
// Validation errors (a caller's mistake) are thrown to the caller; every other failure is an
// environment problem that turns the store into a no-op (see safe.ts), announced once.

import { ZodexError, isErrorCode, type StoreErrorCode } from '../../errors.js';

export type { StoreErrorCode };

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

// A caller's mistake (a code a tool result carries): thrown through the no-op wrapper, never
// degrades it.
export function isValidationError(error: unknown): error is StoreError {
  return error instanceof StoreError && isErrorCode(error.code);
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
