// One message per condition, whichever path detects it: the tool's validation (zod, before the
// handler) and the handler or engine behind it give the same code and the same text.
import { describe, expect, it } from 'vitest';
import { refuseNul } from '../../src/exec/nul.js';
import { normalizeAlias } from '../../src/features/store/identity.js';
import { applyPatchInput } from '../../src/tools/apply_patch.js';
import { execCommandInput } from '../../src/tools/exec_command.js';
import { setAgentAliasInput } from '../../src/features/liveboard/set_agent_alias.js';
import { parseArguments } from '../../src/tools/validate.js';
import { resolveWorkdir } from '../../src/tools/workdir.js';

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

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  throw new Error('expected a rejection');
}

describe('one message per condition', () => {
  it('a missing workdir: the schema and the handler (exec_command, apply_patch)', () => {
    const handler = failure(() => resolveWorkdir(undefined, undefined));
    expect(handler).toMatch(/^WORKDIR_REQUIRED: /);
    expect(failure(() => parseArguments('exec_command', execCommandInput(limits), { cmd: 'ls' }))).toBe(handler);
    expect(failure(() => parseArguments('apply_patch', applyPatchInput(), { patch: '' }))).toBe(handler);
    expect(failure(() => resolveWorkdir('', undefined))).toBe(handler);
  });

  it('a NUL in cmd or workdir: the tool validation and the engine before it spawns', () => {
    const exec = execCommandInput(limits);
    const cmd = 'echo A\u0000; touch X';
    expect(failure(() => refuseNul({ cmd, cwd: '/' }))).toBe(failure(() => parseArguments('exec_command', exec, { cmd, workdir: '/' })));
    expect(failure(() => refuseNul({ cmd: 'ls', cwd: '/tm\u0000p' }))).toBe(
      failure(() => parseArguments('exec_command', exec, { cmd: 'ls', workdir: '/tm\u0000p' })),
    );
    expect(failure(() => refuseNul({ cmd, cwd: '/' }))).toMatch(
      /^NUL_CHARACTER: `cmd` holds a NUL character \(\\u0000\) at index 6: a command line cannot carry NUL/,
    );
  });

  it('an alias over 80 characters: the schema and the store', () => {
    const alias = 'a'.repeat(81);
    expect(failure(() => parseArguments('set_agent_alias', setAgentAliasInput(), { alias }))).toBe(failure(() => normalizeAlias(alias)));
  });
});
