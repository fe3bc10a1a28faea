// The confinement reaches the command whichever way it was started (launcher.ts): a pooled
// standby (the policy in the frame), the zygote forking the reporter itself (`run`), node-pty
// direct (the policy in zodex-spawn's own environment, taken out before the shell). Each way, the
// masked file reads empty, the parent's environment is out of reach, the command sees no
// ZODEX_CONFINE, its terminal is still a terminal, and a refused socket() is counted in the exit.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Confinement } from '../../src/bounds/confinement.js';
import { spawnPty } from '../../src/exec/launch/launcher.js';
import type { Terminal, TerminalExit } from '../../src/exec/launch/terminal.js';
import { StandbyPool } from '../../src/exec/launch/standby.js';
import { CONFINE_ENV, encodeConfinement, type CommandSpec } from '../../src/exec/launch/wire.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');
const pools: StandbyPool[] = [];
const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-confine-ways-')));
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const secret = path.join(scratch, 'credentials');
fs.writeFileSync(secret, 'https://writer:secretForTheWays@example.com\n');
const policy: Confinement = {
  governed: true,
  sandbox: 'off',
  networkOff: true,
  masks: [secret],
  maskPrefixes: [],
  pins: [],
  allowedSockets: [],
  binds: [],
  readOnly: [],
  writableRoots: [],
  privateTmp: undefined,
  visible: [],
  runtimeDir: undefined,
  keep: [],
};
const SCRIPT = `cat '${secret}'; echo "[$ZODEX_CONFINE]"; cat /proc/$PPID/environ >/dev/null 2>&1 && echo parent-readable || echo parent-refused; test -t 0 && test -t 1 && echo terminal; exec 3<>/dev/tcp/127.0.0.1/9 2>/dev/null; echo done`;
const spec = (): CommandSpec => ({
  file: '/bin/bash',
  args: ['-c', SCRIPT],
  cwd: scratch,
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [CONFINE_ENV]: encodeConfinement(policy) },
});

function run(pty: Terminal): Promise<{ output: string; exit: TerminalExit }> {
  let output = '';
  pty.onData((bytes) => (output += bytes.toString('utf8')));
  return new Promise((resolve) =>
    pty.onExit((exit) => {
      pty.dispose();
      resolve({ output, exit });
    }),
  );
}

function check({ output, exit }: { output: string; exit: TerminalExit }): void {
  expect(output).not.toContain('secretForTheWays');
  expect(output).toContain('[]\n');
  expect(output).toContain('parent-refused');
  expect(output).toContain('terminal');
  expect(output).toContain('done');
  expect(exit).toMatchObject({ exitCode: 0, networkRefused: 1, complete: true });
}

describe('the confinement, by each way a command starts', () => {
  it('a pooled standby: the policy travels in the frame', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    let pty: Terminal | undefined;
    for (let i = 0; i < 200 && !pty; i++) {
      pty = pool.take(spec());
      if (!pty) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    check(await run(pty!));
  });

  it("the zygote's run: the reporter forked with the frame", async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    const pty = await pool.run(spec());
    expect(pty).toBeDefined();
    check(await run(pty!));
  });

  it("node-pty direct: the policy in zodex-spawn's own environment", async () => {
    const { file, args, cwd, env } = spec();
    check(await run(spawnPty({ file, args, cwd, env, spawnHelper: HELPER, cols: 80, rows: 24 })));
  });
});
