// Comparing secrets (bearer tokens, cookies, CSRF tokens) without leaking them through timing:
// both sides are hashed to fixed-length digests first, so the comparison is constant-time
// whatever the lengths.

import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value).digest();

// Equal strings, compared in constant time whatever their lengths.
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
