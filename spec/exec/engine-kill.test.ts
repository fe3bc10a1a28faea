// ExecEngine's process hygiene: a NUL in what execve would carry is refused before anything runs,
// and a kill reaches a daemon that keeps changing pid, with a cgroup and with the /proc sweep alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { configFor } from '../../src/app/config/parse.js';
import { engineOptions } from '../../src/app/options.js';
import { ExecEngine } from '../../src/exec/engine.js';
import { pickShell, serverEnvironment } from '../../src/exec/environment.js';
import { SpillStore } from '../../src/exec/output/spill.js';
import { errorCode } from '../../src/errors.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-engine-kill-'));
// hop.sh TAG LOG: notes its pid in LOG, starts a copy of itself in a new session (setsid) and
// exits, over and over. A scan of /proc can miss it (each pid lives a millisecond); its log cannot.
const HOP = path.join(dir, 'hop.sh');
fs.writeFileSync(HOP, '#!/bin/sh\necho $$ >> "$2"\nsetsid sh "$0" "$1" "$2" &\n');
const engines: ExecEngine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.shutdown()));
  fs.rmSync(dir, { recursive: true, force: true });
});

function engine(cgroups: boolean, log: (message: string) => void = () => {}): { engine: ExecEngine; started: string[] } {
  const started: string[] = [];
  const made = new ExecEngine(
    {
      ...engineOptions(configFor(['--mode', 'sprite']), {
        spawnHelper: HELPER,
        shell: Promise.resolve(serverEnvironment(pickShell('sprite'), { remove: [], set: {} })),
        spill: new SpillStore({ parentDir: dir, capBytes: 1 << 20, maxAgeMs: 3_600_000 }),
        log,
      }),
      cgroups,
    },
    { onSessionStart: (session) => started.push(session.cmd) },
  );
  engines.push(made);
  return { engine: made, started };
}

function hops(log: string): number {
  try {
    return fs.statSync(log).size;
  } catch {
    return 0;
  }
}

// A hopping daemon started as `sh HOP TAG LOG`: started() once it hopped (up to 5 s under load),
// hopping() while its log grows within 300 ms.
function daemon(): { cmd: string; started(): Promise<boolean>; hopping(): Promise<boolean> } {
  const tag = `hop${randomBytes(6).toString('hex')}`;
  const log = path.join(dir, `${tag}.log`);
  return {
    cmd: `sh ${HOP} ${tag} ${log}`,
    async started() {
      for (let i = 0; i < 250 && hops(log) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      return hops(log) > 0;
    },
    async hopping() {
      const before = hops(log);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return hops(log) > before;
    },
  };
}

// Gone: within `withinMs` its log stops growing, and stays so.
async function gone(hopper: ReturnType<typeof daemon>, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (await hopper.hopping()) if (Date.now() > deadline) return false;
  return !(await hopper.hopping());
}

const TRIALS = 20;
// Trials run BATCH at a time: each mostly waits (a hop every few ms, 300 ms looks), and several
// hopping daemons at once are a harder test of the kill than one, not an easier one.
const BATCH = 5;

// Runs trial() TRIALS times, BATCH at once; how many of them returned false.
async function failures(trial: () => Promise<boolean>): Promise<number> {
  let failed = 0;
  for (let done = 0; done < TRIALS; done += BATCH) {
    const results = await Promise.all(Array.from({ length: Math.min(BATCH, TRIALS - done) }, trial));
    failed += results.filter((ok) => !ok).length;
  }
  return failed;
}

describe.each([
  ['a cgroup per command', true],
  ['the /proc sweep alone', false],
])('with %s', (_label, cgroups) => {
  const { engine: made } = engine(cgroups);

  it(`kill_process ends a pid-hopping daemon, ${TRIALS} of ${TRIALS}`, async () => {
    const survived = await failures(async () => {
      const hopper = daemon();
      const session = await made.start({ cmd: `${hopper.cmd}; sleep 30`, cwd: dir, timeoutMs: 60_000, owner: 'spec' });
      expect(await hopper.started()).toBe(true);
      session.kill('killed');
      expect((await made.collect(session, 10_000)).terminationReason).toBe('killed');
      return gone(hopper, 0);
    });
    expect(survived).toBe(0);
  }, 120_000);

  it(`a timeout ends a pid-hopping daemon, ${TRIALS} of ${TRIALS}`, async () => {
    const survived = await failures(async () => {
      const hopper = daemon();
      const session = await made.start({ cmd: `${hopper.cmd}; sleep 30`, cwd: dir, timeoutMs: 300, owner: 'spec' });
      expect(await hopper.started()).toBe(true);
      expect((await made.collect(session, 10_000)).terminationReason).toBe('timeout');
      return gone(hopper, 0);
    });
    expect(survived).toBe(0);
  }, 120_000);

  it(`the command's normal end takes a pid-hopping daemon along, ${TRIALS} of ${TRIALS}`, async () => {
    const survived = await failures(async () => {
      const hopper = daemon();
      const session = await made.start({ cmd: `${hopper.cmd}; sleep 0.3`, cwd: dir, timeoutMs: 60_000, owner: 'spec' });
      expect(await hopper.started()).toBe(true);
      const report = await made.collect(session, 10_000);
      expect(report).toMatchObject({ status: 'exited', exitCode: 0, terminationReason: 'exit' });
      return gone(hopper, 2_000);
    });
    expect(survived).toBe(0);
  }, 120_000);
});

describe('ExecEngine.start', () => {
  it('says at start which kill mechanism it uses', () => {
    const lines: string[] = [];
    engine(true, (line) => lines.push(line));
    engine(false, (line) => lines.push(line));
    expect(lines[0]).toMatch(/^kill: (each command runs in its own cgroup v2 below \/.+zodex-\d+-\d+ |no cgroup \()/);
    expect(lines[1]).toBe('kill: no cgroup (disabled); descendants are swept through /proc until none is left');
  });

  it('refuses a NUL in cmd, workdir or an environment value before anything is spawned', async () => {
    const { engine: made, started } = engine(false);
    const marker = path.join(dir, 'never');
    const huge = 'x'.repeat(1 << 20);
    const cases = [
      { cmd: `echo A\0; touch ${marker}`, cwd: dir },
      { cmd: `echo A\0\0INJ=x${huge}`, cwd: dir },
      { cmd: `touch ${marker}`, cwd: `${dir}\0/elsewhere` },
      { cmd: `touch ${marker}`, cwd: dir, env: { ZODEX_X: `a\0${huge}` } },
    ];
    for (const request of cases) {
      const error = await made.start({ ...request, timeoutMs: 10_000, owner: 'spec' }).then(
        () => undefined,
        (thrown: unknown) => thrown as Error,
      );
      expect(errorCode(error)).toBe('NUL_CHARACTER');
      expect(error!.message).toMatch(/NUL/);
      expect(error!.message.length).toBeLessThan(400); // never the input itself
    }
    expect(started).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.existsSync(marker)).toBe(false);
  });
});
