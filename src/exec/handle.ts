// Session handles: the capability that lets a caller continue a process. 144 random bits in
// URL-safe base64 behind a fixed prefix; never a pid, a counter or anything guessable.

import { randomBytes } from 'node:crypto';

export const HANDLE_PREFIX = 'zs_';
export const HANDLE_PATTERN = /^zs_[A-Za-z0-9_-]{24}$/;

export function newSessionHandle(): string {
  return HANDLE_PREFIX + randomBytes(18).toString('base64url');
}

// An id for records (history, Liveboard) that refers to a session without granting control.
export function newSessionId(): string {
  return 's' + randomBytes(6).toString('hex');
}
