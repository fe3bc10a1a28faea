// Agent IDs, server instance ids and alias rules: pure functions, no database.
// An Agent ID is four characters from an alphabet without look-alikes (no 0/o, 1/l/i).

import { randomBytes, randomInt } from 'node:crypto';
import { StoreError } from './errors.js';

export const AGENT_ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const AGENT_ID_LENGTH = 4; // 31^4 = 923,521 ids
export const ALIAS_MAX_CHARS = 80; // seed 002, counted in Unicode code points

const AGENT_ID_PATTERN = new RegExp(`^[${AGENT_ID_ALPHABET}]{${AGENT_ID_LENGTH}}$`);

export function newAgentId(): string {
  let id = '';
  for (let i = 0; i < AGENT_ID_LENGTH; i += 1) id += AGENT_ID_ALPHABET[randomInt(AGENT_ID_ALPHABET.length)];
  return id;
}

export function isAgentId(value: string): boolean {
  return AGENT_ID_PATTERN.test(value);
}

// 'z' + 12 hex characters: 48 random bits, unique enough among a user's zodexd processes.
export function newServerId(): string {
  return 'z' + randomBytes(6).toString('hex');
}

// The alias as stored: whitespace runs and control characters become one space, ends trimmed,
// so a label is always one line. '' (or only whitespace) clears the alias. Longer than
// ALIAS_MAX_CHARS as given -> ALIAS_TOO_LONG.
export function normalizeAlias(alias: string): string {
  const length = [...alias].length;
  if (length > ALIAS_MAX_CHARS) throw new StoreError('ALIAS_TOO_LONG', aliasTooLongMessage(length));
  // eslint-disable-next-line no-control-regex
  return alias.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

// The one text for a too-long alias, whichever check finds it (the tool's schema or the store).
export function aliasTooLongMessage(length: number): string {
  return `\`alias\` is ${length.toLocaleString('en-US')} characters; the limit is ${ALIAS_MAX_CHARS} characters: use a 2-7 word label (send "" to clear it)`;
}

// A recorded text field cut to `max` code points, marked with an ellipsis.
export function clip(text: string, max: number): string {
  if (text.length <= max) return text; // fast path: UTF-16 length bounds the code point count
  const points = [...text];
  return points.length <= max ? text : points.slice(0, max - 1).join('') + '…';
}
