// Typed publisher errors with stable codes. The daemon turns every one of them into an
// `{ ok: false, error: { code, message } }` response in one place (daemon.ts); zodex-agent
// prints `CODE: message` on one line and exits 1. Messages say what to do about it.

import { PUBLISHER_REFUSAL_CODES, ZodexError, type PublisherErrorCode } from '../../errors.js';

// The codes, each with its meaning, are registered in errors.ts (never in a tool result).
export type { PublisherErrorCode };

// Codes that mean "the rules said no" (history outcome `refused`), as opposed to "we tried and
// something broke" (outcome `failed`).
export const REFUSAL_CODES = PUBLISHER_REFUSAL_CODES;

export class PublisherError extends ZodexError {
  constructor(
    override readonly code: PublisherErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'PublisherError';
  }
}
