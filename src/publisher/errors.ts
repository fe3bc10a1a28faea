// Typed publisher errors with stable codes. The daemon turns every one of them into an
// `{ ok: false, error: { code, message } }` response in one place (daemon.ts); zodex-agent
// prints `CODE: message` on one line and exits 1. Messages say what to do about it.

import { ZodexError } from '../errors.js';

export type PublisherErrorCode =
  // Write mode
  | 'WRITE_MODE_READ_ONLY'
  | 'WRITE_MODE_NO_DIRECT'
  // The checkout
  | 'NOT_A_GIT_CHECKOUT'
  | 'DETACHED_HEAD'
  | 'DIRTY_WORKTREE'
  | 'COMMIT_MISMATCH'
  | 'BRANCH_MISMATCH'
  | 'INVALID_BRANCH_NAME'
  // Where it would go
  | 'BASE_BRANCH'
  | 'PROTECTED_BRANCH'
  | 'REMOTE_MISSING'
  | 'REMOTE_NOT_ALLOWED'
  // Doing it
  | 'NO_TOKEN'
  | 'PUSH_REJECTED'
  | 'PUSH_FAILED'
  | 'GITHUB_UNREACHABLE'
  | 'GITHUB_API_ERROR'
  | 'ROLLBACK_FAILED'
  // The conversation with the daemon
  | 'BAD_REQUEST'
  | 'UNSUPPORTED_VERSION'
  | 'PUBLISHER_UNREACHABLE'
  | 'PUBLISHER_TIMEOUT'
  | 'PUBLISHER_PROTOCOL'
  | 'INTERNAL'
  // Starting the daemon
  | 'UNSAFE_SOCKET_FOLDER'
  | 'SOCKET_IN_USE'
  | 'UNSAFE_TOKEN_FILE'
  | 'BAD_TOKEN'
  | 'BAD_CONFIG'
  // A client the publisher does not serve (its own user, or one it cannot identify)
  | 'PEER_REFUSED';

// Codes that mean "the rules said no" (history outcome `refused`), as opposed to "we tried and
// something broke" (outcome `failed`).
export const REFUSAL_CODES: ReadonlySet<PublisherErrorCode> = new Set([
  'WRITE_MODE_READ_ONLY',
  'WRITE_MODE_NO_DIRECT',
  'NOT_A_GIT_CHECKOUT',
  'DETACHED_HEAD',
  'DIRTY_WORKTREE',
  'COMMIT_MISMATCH',
  'BRANCH_MISMATCH',
  'INVALID_BRANCH_NAME',
  'BASE_BRANCH',
  'PROTECTED_BRANCH',
  'REMOTE_MISSING',
  'REMOTE_NOT_ALLOWED',
  'NO_TOKEN',
  'BAD_REQUEST',
  'UNSUPPORTED_VERSION',
]);

export class PublisherError extends ZodexError {
  constructor(
    override readonly code: PublisherErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'PublisherError';
  }
}
