import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { applyPatchInput } from '../../src/tools/apply_patch.js';
import { execCommandInput } from '../../src/tools/exec_command.js';
import { setAgentAliasInput } from '../../src/features/liveboard/set_agent_alias.js';
import { writeStdinInput } from '../../src/tools/write_stdin.js';
import { nearestName } from '../../src/errors.js';
import { parseArguments, strictSchema } from '../../src/tools/validate.js';

const limits = {
  maxExecTimeoutMs: 7_200_000,
  maxYieldMs: 30_000,
  defaultWorkdir: undefined,
  inlineLimitBytes: 65_536,
  previewBytes: 16_384,
  headBytes: 4_096,
  tailFileBytes: 1 << 20,
  spillCapBytes: 16 << 20,
};
const exec = execCommandInput(limits);

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('expected a rejection');
}

describe('parseArguments', () => {
  it('builds the strict schema of a shape once, not on every call (zod compiles each new object schema on its first parse)', () => {
    expect(strictSchema(exec)).toBe(strictSchema(exec));
    expect(strictSchema(exec)).not.toBe(strictSchema(execCommandInput(limits)));
    const strict = strictSchema(exec);
    const parse = vi.spyOn(strict, 'safeParse');
    try {
      parseArguments('exec_command', exec, { cmd: 'ls', workdir: '/' });
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('returns the typed arguments of a valid call', () => {
    expect(parseArguments('exec_command', exec, { cmd: 'ls', workdir: '/', timeout_ms: 5 })).toEqual({ cmd: 'ls', workdir: '/', timeout_ms: 5 });
  });

  it('refuses an unknown argument, naming it and the nearest valid name', () => {
    const { code, message } = failure(() => parseArguments('exec_command', exec, { cmd: 'ls', workdir: '/', timeout: 1 }));
    expect(code).toBe('UNKNOWN_ARGUMENT');
    expect(message).toContain('`timeout`: exec_command has no such argument (did you mean `timeout_ms`?)');
    const huge = failure(() => parseArguments('exec_command', exec, { cmd: 'ls', ['k'.repeat(1_000_000)]: 1 }));
    expect(huge.message.length).toBeLessThan(500);
  });

  it('gives each kind of zod issue its registered code and names the field', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ workdir: '/' }, 'MISSING_ARGUMENT', '`cmd`'],
      [{ cmd: 1, workdir: '/' }, 'INVALID_TYPE', '`cmd` must be a string, not a number'],
      [{ cmd: '', workdir: '/' }, 'INVALID_VALUE', '`cmd` is empty'],
      [{ cmd: 'ls' }, 'WORKDIR_REQUIRED', '`workdir` is required'],
      [{ cmd: 'ls', workdir: '/', yield_time_ms: null }, 'INVALID_TYPE', '`yield_time_ms` must be a number, not null'],
      [{ cmd: 'ls', workdir: '/', timeout_ms: JSON.parse('1e400') as number }, 'INVALID_TYPE', '`timeout_ms` must be a number, not Infinity'],
    ];
    for (const [args, code, text] of cases) {
      const result = failure(() => parseArguments('exec_command', exec, args));
      expect(result.code, JSON.stringify(args)).toBe(code);
      expect(result.message).toContain(text);
    }
    expect(failure(() => parseArguments('set_agent_alias', setAgentAliasInput(), { alias: 'a'.repeat(81) })).code).toBe('ALIAS_TOO_LONG');
    expect(failure(() => parseArguments('write_stdin', writeStdinInput(limits), { session_handle: 'h', kill_process: 1 })).code).toBe('INVALID_TYPE');
    expect(failure(() => parseArguments('write_stdin', writeStdinInput(limits), { session_handle: 'h', since_offset: 1.5 })).code).toBe('SINCE_OFFSET_INVALID');
    // A whole number past what a double holds exactly is past the end, said once.
    const far = failure(() => parseArguments('write_stdin', writeStdinInput(limits), { session_handle: 'h', since_offset: 1e20 }));
    expect(far.code).toBe('SINCE_OFFSET_AHEAD');
    expect(far.message).toBe('since_offset 100000000000000000000 is past the end of the stream: pass the output_offset of an earlier result');
  });

  it('refuses NUL in cmd and workdir but lets chars carry it', () => {
    expect(failure(() => parseArguments('exec_command', exec, { cmd: 'echo A\u0000; touch X', workdir: '/' })).message).toMatch(
      /^`cmd` holds a NUL character \(\\u0000\) at index 6/,
    );
    expect(failure(() => parseArguments('exec_command', exec, { cmd: 'ls', workdir: '/tmp\u0000' })).code).toBe('NUL_CHARACTER');
    expect(parseArguments('write_stdin', writeStdinInput(limits), { session_handle: 'h', chars: '\u0000' }).chars).toBe('\u0000');
  });

  it('refuses any string field holding a lone surrogate, at its index, and accepts well-formed text', () => {
    const fields: [string, Record<string, import('zod').ZodType>, Record<string, string>, string][] = [
      ['exec_command', exec, { workdir: '/' }, 'cmd'],
      ['exec_command', exec, { cmd: 'ls' }, 'workdir'],
      ['write_stdin', writeStdinInput(limits), { session_handle: 'h' }, 'chars'],
      ['write_stdin', writeStdinInput(limits), {}, 'session_handle'],
      ['apply_patch', applyPatchInput(), { workdir: '/' }, 'patch'],
      ['set_agent_alias', setAgentAliasInput(), {}, 'alias'],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.integer({ min: 0xd800, max: 0xdfff }),
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        ([tool, shape, rest, field], before, unit, after) => {
          // a low surrogate right after a high one would pair up: keep the lone one alone
          const lone = String.fromCharCode(unit);
          const value = `${before}${lone}${unit >= 0xdc00 ? '' : 'x'}${after}`;
          const result = failure(() => parseArguments(tool, shape, { ...rest, [field]: value }));
          expect(result.code).toBe('INVALID_UNICODE');
          expect(result.message).toContain(`\`${field}\` holds an unpaired UTF-16 surrogate`);
          expect(result.message).toContain(`at index ${before.length}`);
        },
      ),
    );
    expect(parseArguments('write_stdin', writeStdinInput(limits), { session_handle: 'h', chars: '\ud83d\ude00' }).chars).toBe('\ud83d\ude00');
  });
});

describe('nearestName', () => {
  it('suggests likely typos and nothing for unrelated names', () => {
    const names = ['cmd', 'workdir', 'yield_time_ms', 'timeout_ms'];
    expect(nearestName('timeout', names)).toBe('timeout_ms');
    expect(nearestName('wrokdir', names)).toBe('workdir');
    expect(nearestName('command', names)).toBe('cmd');
    expect(nearestName('path', names)).toBeUndefined();
    expect(nearestName('yield_ms', names)).toBe('yield_time_ms');
    expect(nearestName('zzzzzzzz', names)).toBeUndefined();
  });
});
