import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  OPERATOR_CODES,
  PUBLISHER_REFUSAL_CODES,
  QUOTE_MAX_CHARS,
  ZodexError,
  clipText,
  escapeControls,
  isErrorCode,
  quote,
} from '../src/errors.js';

describe('quote and clipText', () => {
  it('quote short values whole, as JSON strings', () => {
    expect(quote('abc')).toBe('"abc"');
    expect(quote('a\u0000b\ud800')).toBe('"a\\u0000b\\ud800"');
    expect(clipText('abc')).toBe('abc');
  });

  it('keep at most 200 characters of a long value and say how many more there were', () => {
    const text = quote('h'.repeat(1_000_000));
    expect(text).toBe(`"${'h'.repeat(200)}"… and 999,800 more characters`);
    expect(clipText('x'.repeat(250), 10)).toBe(`${'x'.repeat(10)}… and 240 more characters`);
  });

  it('never split a surrogate pair and stay bounded for any input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 600 }), fc.integer({ min: 1, max: 300 }), (value, max) => {
        const clipped = clipText(value, max);
        const kept = clipped === value ? clipped : clipped.slice(0, clipped.lastIndexOf('… and ')); // a clipped text may be as long as the value
        expect(value.startsWith(kept)).toBe(true);
        expect(kept.length).toBeLessThanOrEqual(max);
        expect(/\p{Cs}/u.test(kept)).toBe(false); // a well-formed input stays well-formed
        expect(quote(value, max).length).toBeLessThanOrEqual(6 * max + 50);
      }),
    );
    expect(QUOTE_MAX_CHARS).toBe(200);
  });

  it('leave nothing a terminal acts on: C0 and C1 controls, DEL, format and bidi characters, separators, lone surrogates', () => {
    // An OSC 52 clipboard write, a line erase and a carriage return that would forge a line.
    const attack = 'x:a\u001b]52;c;ZWNobyBvd25lZAo=\u0007\u001b[2K\rzodexd: oauth: the operator approved "Claude"';
    expect(quote(attack)).toBe('"x:a\\u001b]52;c;ZWNobyBvd25lZAo=\\u0007\\u001b[2K\\rzodexd: oauth: the operator approved \\"Claude\\""');
    expect(quote('\u007f\u009b31m\u202eevil\u2028\u2066\u200b\ufeff\u{e0041}')).toBe(
      '"\\u007f\\u009b31m\\u202eevil\\u2028\\u2066\\u200b\\ufeff\\udb40\\udc41"',
    );
    expect(escapeControls('one\ntwo\u001b[2K\u0085 ok é 😀')).toBe('one\\u000atwo\\u001b[2K\\u0085 ok é 😀');
    const unsafe = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (value) => {
        expect(unsafe.test(quote(value, 300))).toBe(false);
        expect(unsafe.test(escapeControls(value))).toBe(false);
        expect(JSON.parse(quote(value, 300))).toBe(value); // still the value, read back as JSON
      }),
    );
  });
});

describe('the error code registry', () => {
  it('holds each code once, with a one-line meaning, in exactly one of the two surfaces', () => {
    for (const [code, meaning] of [...Object.entries(ERROR_CODES), ...Object.entries(OPERATOR_CODES)]) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(meaning.length).toBeGreaterThan(10);
      expect(meaning).not.toContain('\n');
    }
    expect(Object.keys(ERROR_CODES).filter((code) => Object.hasOwn(OPERATOR_CODES, code))).toEqual([]);
    expect(isErrorCode('UNKNOWN_SESSION')).toBe(true);
    expect(isErrorCode('PATCH_PARSE')).toBe(true);
    expect(isErrorCode('CONTEXT_NOT_FOUND')).toBe(true);
    expect(isErrorCode('ENOENT')).toBe(false);
    expect(isErrorCode('STORE_UNAVAILABLE')).toBe(false); // an operator code: never a tool result's
    expect(isErrorCode('toString')).toBe(false);
    expect(new ZodexError('UNKNOWN_ARGUMENT', 'x').code).toBe('UNKNOWN_ARGUMENT');
    expect([...PUBLISHER_REFUSAL_CODES].every((code) => Object.hasOwn(OPERATOR_CODES, code))).toBe(true);
  });

  // docs/errors.md holds the registry as tables, one row per code: `| `CODE` | meaning |`, the
  // meaning word for word (Markdown escapes aside). Tool codes first, then the operator's.
  it('is the table of docs/errors.md, code for code and word for word', () => {
    const page = fs.readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
    const section = (heading: string) => {
      const start = page.indexOf(`\n## ${heading}\n`);
      expect(start, `docs/errors.md has a section "## ${heading}"`).toBeGreaterThan(-1);
      const end = page.indexOf('\n## ', start + 1);
      return page.slice(start, end === -1 ? undefined : end);
    };
    const rows = (text: string) =>
      Object.fromEntries([...text.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (.*) \|$/gm)].map((match) => [match[1], match[2]!.replace(/\\([<>|*_`\\])/g, '$1')]));
    expect(rows(section('Codes a tool result can carry')), 'every ERROR_CODES entry, as a row `| `CODE` | meaning |`').toEqual({ ...ERROR_CODES });
    expect(rows(section("Codes of the operator's tools")), 'every OPERATOR_CODES entry, as a row `| `CODE` | meaning |`').toEqual({ ...OPERATOR_CODES });
  });
});
