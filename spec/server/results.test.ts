import { describe, expect, it } from 'vitest';
import { ZodexError } from '../../src/errors.js';
import { StoreError } from '../../src/features/store/errors.js';
import { errorResult } from '../../src/server/results.js';

const textOf = (result: ReturnType<typeof errorResult>) => (result.content[0] as { text: string }).text;

describe('errorResult', () => {
  it('maps a ZodexError with a registered code to "CODE: message"', () => {
    const logged: string[] = [];
    const result = errorResult(new ZodexError('UNKNOWN_SESSION', 'no such handle'), (line) => logged.push(line));
    expect(result).toEqual({ content: [{ type: 'text', text: 'UNKNOWN_SESSION: no such handle' }], isError: true });
    expect(logged).toEqual([]);
  });

  it('reports a leaked system error, an unregistered code or a bug as INTERNAL, and logs it', () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open '/x'"), { code: 'ENOENT' });
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const lookalike = Object.assign(new Error('x'), { code: 'UNKNOWN_SESSION' }); // a code-looking string, not a ZodexError
    const unregistered = new ZodexError('NOT_REGISTERED' as never, 'x');
    const operator = new StoreError('STORE_UNAVAILABLE', 'state database is unusable'); // registered, but no tool result's
    const cases: unknown[] = [
      enoent,
      Object.assign(new Error('x'), { code: 'ENOENT' }),
      busy,
      lookalike,
      unregistered,
      operator,
      new TypeError('boom'),
      'a string',
      null,
    ];
    for (const error of cases) {
      const logged: string[] = [];
      const result = errorResult(error, (line) => logged.push(line));
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^INTERNAL: /);
      expect(logged).toHaveLength(1);
    }
  });

  it('keeps an internal message bounded', () => {
    const result = errorResult(new Error('x'.repeat(1_000_000)), () => {});
    expect(textOf(result).length).toBeLessThan(1_000);
  });
});
