// The secrets OAuth hands out: access and refresh tokens, authorization codes, grant ids, and
// the operator's pairing codes. All are random (≥ 256 bits for tokens and codes, 50 for a
// pairing code, which also expires and allows few attempts); only their SHA-256 is ever stored.

import { createHash, randomBytes, randomInt } from 'node:crypto';

export const secret = (prefix: string): string => `${prefix}${randomBytes(32).toString('base64url')}`;
export const grantId = (): string => `zg_${randomBytes(9).toString('base64url')}`;
export const clientIdFor = (): string => `zc_${randomBytes(16).toString('base64url')}`;

export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

// RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))).
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

// RFC 7636 §4.1: 43-128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~".
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

// Crockford's base32 (no I, L, O, U): read aloud and typed without confusion.
const PAIRING_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PAIRING_LENGTH = 10;

export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

// What the operator typed, as the code it stands for: case, spaces and dashes do not matter, and
// O, I and L read as 0, 1 and 1.
export function normalizePairingCode(typed: string): string {
  return typed.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1').slice(0, 64);
}
