import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeStoreFailure } from '../../../src/features/store/errors.js';
import { clip, newAgentId, normalizeAlias } from '../../../src/features/store/identity.js';
import { AGENT_ID_ALPHABET, ALIAS_MAX_CHARS, isAgentId, StoreError } from '../../../src/features/store/index.js';

describe('alias rules', () => {
  it('accepts up to 80 characters and yields one trimmed line', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite', maxLength: ALIAS_MAX_CHARS }), (alias) => {
        fc.pre([...alias].length <= ALIAS_MAX_CHARS);
        const value = normalizeAlias(alias);
        expect(value).toBe(value.trim());
        expect(value).not.toMatch(/[\n\r\t\u0000-\u001f]/);
        expect(value).not.toMatch(/\s{2}/);
        expect(normalizeAlias(value)).toBe(value); // idempotent
      }),
    );
  });

  it('rejects anything longer with ALIAS_TOO_LONG', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: ALIAS_MAX_CHARS + 1, maxLength: 300 }), (alias) => {
        fc.pre([...alias].length > ALIAS_MAX_CHARS);
        expect(() => normalizeAlias(alias)).toThrowError(StoreError);
      }),
    );
  });
});

describe('identifiers and clipping', () => {
  it('draws Agent IDs from the unambiguous alphabet only', () => {
    for (let i = 0; i < 5_000; i += 1) {
      const id = newAgentId();
      expect(isAgentId(id)).toBe(true);
      for (const char of id) expect(AGENT_ID_ALPHABET).toContain(char);
    }
    expect(isAgentId('abc')).toBe(false);
    expect(isAgentId('ab1d')).toBe(false);
    expect(isAgentId('ABCD')).toBe(false);
  });

  it('clips to at most max code points and keeps short text as is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.integer({ min: 1, max: 100 }), (text, max) => {
        const clipped = clip(text, max);
        expect([...clipped].length).toBeLessThanOrEqual(max);
        if ([...text].length <= max) expect(clipped).toBe(text);
        else expect(clipped.endsWith('…')).toBe(true);
      }),
    );
  });
});

describe('failure descriptions', () => {
  const file = '/state/zodex.db';
  const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });
  it.each([
    ['SQLITE_BUSY', 'database is locked', 'locked by another process'],
    ['SQLITE_NOTADB', 'file is not a database', 'it is corrupt; move it aside'],
    ['SQLITE_CORRUPT', 'database disk image is malformed', 'it is corrupt'],
    ['SQLITE_READONLY', 'attempt to write a readonly database', 'cannot be written'],
    ['EACCES', 'permission denied', 'cannot be written'],
    ['SQLITE_FULL', 'database or disk is full', 'disk is full'],
  ])('%s says what to do', (code, message, hint) => {
    const text = describeStoreFailure(sqliteError(code, message), file);
    expect(text).toContain(file);
    expect(text).toContain(hint);
    expect(text).toContain(code);
  });
});
