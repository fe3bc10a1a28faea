import { describe, expect, it } from 'vitest';
import { ZodexError } from '../../src/errors.js';
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
    const cases: unknown[] = [enoent, new ZodexError('NOT_REGISTERED', 'x'), new TypeError('boom'), 'a string'];
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
