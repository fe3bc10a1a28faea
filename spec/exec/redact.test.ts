// The streaming redactor (issue 26): every known value becomes [REDACTED:NAME] however the stream
// is cut, only a possible start of a value is ever held back, and values added while a stream
// runs are redacted from then on. The reference is leftmost-longest over the whole text.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamRedactor, type RedactionSource } from '../../src/exec/output/redact.js';
import { SecretRegistry } from '../../src/secrets.js';

interface Secret {
  name: string;
  value: string;
}

function source(secrets: Secret[]): RedactionSource {
  return { version: 0, list: () => secrets };
}

// Leftmost-longest over the whole text: at each position the longest value that starts there is
// replaced, else one character is kept.
function reference(text: string, secrets: Secret[]): string {
  const byLength = [...secrets].filter((s) => s.value !== '').sort((a, b) => b.value.length - a.value.length);
  let out = '';
  let i = 0;
  while (i < text.length) {
    const hit = byLength.find((s) => text.startsWith(s.value, i));
    if (hit) {
      out += `[REDACTED:${hit.name}]`;
      i += hit.value.length;
    } else out += text[i++];
  }
  return out;
}

// The stream cut at `cuts`, each result copied (a result is valid until the next push).
function streamed(redactor: StreamRedactor, bytes: Buffer, cuts: number[]): string {
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1))].sort((a, b) => a - b)) {
    out.push(Buffer.from(redactor.push(bytes.subarray(at, cut))));
    at = cut;
  }
  out.push(Buffer.from(redactor.push(bytes.subarray(at))), Buffer.from(redactor.end()));
  return Buffer.concat(out).toString('utf8');
}

// Small alphabets make overlaps, shared prefixes and values inside values common.
const value = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é'), minLength: 1, maxLength: 6 });
const secrets = fc.uniqueArray(value, { minLength: 1, maxLength: 4 }).map((values) => values.map((v, i) => ({ name: `S${i}`, value: v })));
const text = fc
  .array(fc.oneof(value, fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', '\n', 'é'), maxLength: 5 })), { maxLength: 20 })
  .map((parts) => parts.join(''));
const cuts = fc.array(fc.nat(), { maxLength: 12 });

describe('StreamRedactor', () => {
  it('gives the whole-text answer however the stream is cut, anywhere (inside a value, inside a character)', () => {
    fc.assert(
      fc.property(secrets, text, cuts, (known, input, at) => {
        const bytes = Buffer.from(input, 'utf8');
        expect(streamed(new StreamRedactor(source(known)), bytes, at)).toBe(reference(input, known));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same answer for values longer than the searched anchor, repetitive like the text around them', () => {
    const long = fc.string({ unit: fc.constantFrom('x', 'x', 'x', 'y', '\n'), minLength: 9, maxLength: 24 });
    const longSecrets = fc.uniqueArray(long, { minLength: 1, maxLength: 4 }).map((values) => values.map((v, i) => ({ name: `L${i}`, value: v })));
    const repetitive = fc
      .array(fc.oneof(long, fc.string({ unit: fc.constantFrom('x', 'y', '\n'), maxLength: 30 })), { maxLength: 12 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(longSecrets, repetitive, cuts, (known, input, at) => {
        expect(streamed(new StreamRedactor(source(known)), Buffer.from(input, 'utf8'), at)).toBe(reference(input, known));
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves no value in the output', () => {
    fc.assert(
      fc.property(secrets, text, cuts, (known, input, at) => {
        const out = streamed(new StreamRedactor(source(known)), Buffer.from(input, 'utf8'), at);
        const shown = out.replace(/\[REDACTED:S\d\]/g, '|');
        for (const { value } of known) expect(shown).not.toContain(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('holds back only an end of the stream that could still become a value', () => {
    fc.assert(
      fc.property(secrets, text, (known, input) => {
        const bytes = Buffer.from(input, 'utf8');
        const redactor = new StreamRedactor(source(known));
        const shown = Buffer.from(redactor.push(bytes)).toString('utf8');
        const held = bytes.subarray(bytes.length - redactor.holding);
        if (held.length > 0)
          expect(known.some((s) => Buffer.byteLength(s.value) > held.length && Buffer.from(s.value).subarray(0, held.length).equals(held))).toBe(true);
        // and all of the input goes out, redacted, once the end flushes it
        expect(shown + Buffer.from(redactor.end()).toString('utf8')).toBe(reference(input, known));
      }),
      { numRuns: 2000 },
    );
  });

  it('shows a prompt at once unless it really could be the start of a secret', () => {
    const redactor = new StreamRedactor(source([{ name: 'TOKEN', value: 'ghp_0123456789abcdef' }]));
    expect(Buffer.from(redactor.push(Buffer.from('Password: '))).toString()).toBe('Password: ');
    expect(Buffer.from(redactor.push(Buffer.from('token is gh'))).toString()).toBe('token is ');
    expect(Buffer.from(redactor.push(Buffer.from('p_0123'))).toString()).toBe('');
    expect(Buffer.from(redactor.push(Buffer.from('456789abcdef!\n'))).toString()).toBe('[REDACTED:TOKEN]!\n');
    expect(Buffer.from(redactor.push(Buffer.from('ghp_01'))).toString()).toBe('');
    expect(Buffer.from(redactor.end()).toString()).toBe('ghp_01'); // never completed: shown at the end
  });

  it('replaces the longer of two values that share a start, and a value inside another only outside it', () => {
    const known = [
      { name: 'SHORT', value: 'abc123' },
      { name: 'LONG', value: 'abc123456' },
    ];
    const redactor = new StreamRedactor(source(known));
    expect(Buffer.from(redactor.push(Buffer.from('x abc123'))).toString()).toBe('x ');
    expect(Buffer.from(redactor.push(Buffer.from('456 abc123 y'))).toString()).toBe('[REDACTED:LONG] [REDACTED:SHORT] y');
  });

  it('matches a value in its decoded form: colour codes inside it are gone by the time it is matched', () => {
    const redactor = new StreamRedactor(source([{ name: 'T', value: 'line1\r\nline2' }]));
    expect(Buffer.from(redactor.push(Buffer.from('>line1\nline2<'))).toString()).toBe('>[REDACTED:T]<');
  });

  it('redacts a value registered while the stream runs from then on, and drops held bytes of a value removed', () => {
    const registry = new SecretRegistry();
    const redactor = new StreamRedactor(registry);
    expect(Buffer.from(redactor.push(Buffer.from('zat_abcdef zat_'))).toString()).toBe('zat_abcdef zat_');
    registry.add('OAUTH_ACCESS_TOKEN', 'zat_abcdef');
    expect(Buffer.from(redactor.push(Buffer.from('zat_abcdef zat_'))).toString()).toBe('[REDACTED:OAUTH_ACCESS_TOKEN] ');
    registry.delete('zat_abcdef');
    expect(Buffer.from(redactor.push(Buffer.from('x'))).toString()).toBe('zat_x');
  });

  it('passes bytes through untouched (the same object) when there is nothing to redact', () => {
    const bytes = Buffer.from('hello');
    expect(new StreamRedactor(source([])).push(bytes)).toBe(bytes);
    expect(new StreamRedactor(source([{ name: 'T', value: 'zzzz' }])).push(bytes)).toBe(bytes);
  });
});

describe('SecretRegistry', () => {
  it('replaces every value in a whole text, longest first, and keeps a value under its first name', () => {
    const registry = new SecretRegistry();
    registry.add('A', 'secret-value-1');
    registry.add('B', 'secret-value-1');
    registry.add('C', 'secret-value-12');
    expect(registry.redactText('x secret-value-12 secret-value-1 y')).toBe('x [REDACTED:C] [REDACTED:A] y');
    expect(registry.size).toBe(2);
  });

  it('finds a value in JSON text where it is escaped', () => {
    const registry = new SecretRegistry();
    registry.add('KEY', 'line one\n"quoted"');
    expect(registry.redactText(JSON.stringify({ text: 'a line one\n"quoted" b' }))).toBe('{"text":"a [REDACTED:KEY] b"}');
  });

  it('drops a value once it has expired, and ignores empty values', () => {
    let now = 1_000;
    const registry = new SecretRegistry(() => now);
    registry.add('T', 'short-lived-token', 2_000);
    registry.add('E', '');
    expect(registry.list().map((s) => s.name)).toEqual(['T']);
    now = 2_000;
    registry.add('U', 'another-token');
    expect(registry.list().map((s) => s.name)).toEqual(['U']);
  });
});
