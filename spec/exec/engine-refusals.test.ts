// What the engine refuses before it starts anything (no process, no terminal): an unknown handle,
// a NUL in cmd or workdir (the same text as the tool's validation), a start while draining.
import { describe, expect, it } from 'vitest';
import { ExecEngine } from '../../src/exec/engine.js';
import type { SpillStore } from '../../src/exec/output/spill.js';
import { execCommandInput } from '../../src/tools/exec_command.js';
import { parseArguments } from '../../src/tools/validate.js';

const limits = {
  maxExecTimeoutMs: 7_200_000,
  maxYieldMs: 30_000,
  defaultWorkdir: undefined,
  inlineLimitBytes: 16_384,
  previewBytes: 4_096,
  headBytes: 1_024,
  tailFileBytes: 1 << 20,
  spillCapBytes: 16 << 20,
};

function engine(): ExecEngine {
  return new ExecEngine({
    spawnHelper: '/nonexistent/zodex-spawn', // never reached: every case is refused first
    shell: Promise.resolve({ shell: '/bin/sh', env: {} }) as never,
    limits: { inlineBytes: 16_384, previewBytes: 4_096, headBytes: 1_024, tailBytes: 4_096 },
    spill: {} as SpillStore,
    maxSessions: 4,
    unreportedRetentionMs: 60_000,
    cols: 80,
    rows: 24,
    standby: false,
    cgroups: false,
  });
}

async function failure(promise: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  throw new Error('expected a rejection');
}

describe('ExecEngine refusals', () => {
  it('answers an unknown handle with UNKNOWN_SESSION, quoting at most 200 characters of it', async () => {
    const text = await failure(() => engine().find('zs_' + 'x'.repeat(1_000_000)));
    expect(text).toMatch(/^UNKNOWN_SESSION: no running session has the handle "zs_x+"… and 999,803 more characters/);
    expect(text.length).toBeLessThan(600);
  });

  it('refuses a NUL in cmd or workdir with the text the tool validation gives', async () => {
    const exec = execCommandInput(limits);
    const cmd = 'echo A\u0000; touch X';
    expect(await failure(engine().start({ cmd, cwd: '/', timeoutMs: 1_000, owner: 'c' }))).toBe(
      await failure(() => parseArguments('exec_command', exec, { cmd, workdir: '/' })),
    );
    expect(await failure(engine().start({ cmd: 'ls', cwd: '/a\u0000', timeoutMs: 1_000, owner: 'c' }))).toBe(
      await failure(() => parseArguments('exec_command', exec, { cmd: 'ls', workdir: '/a\u0000' })),
    );
  });

  it('starts nothing once shutting down', async () => {
    const draining = engine();
    await draining.shutdown();
    expect(await failure(draining.start({ cmd: 'true', cwd: '/', timeoutMs: 1_000, owner: 'c' }))).toBe(
      'SHUTTING_DOWN: zodexd is shutting down; no new commands are started',
    );
  });
});
