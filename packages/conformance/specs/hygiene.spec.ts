// Process hygiene (issue 12): a command string reaches the shell byte for byte, and a daemon that
// keeps changing pid (setsid a copy of itself, exit, over and over) is gone after kill_process,
// after a timeout and after the command's normal end, 20 times of 20 (five at a time).

import fs from 'node:fs';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import { textOf, type Zodex } from '../harness/zodex.js';

const TRIALS = 20;

// hop.sh LOG: notes its pid in LOG, starts a copy of itself in a new session and exits. A scan of
// /proc can miss it (each pid lives a millisecond); its log, which grows while it lives (checked
// over 300 ms), cannot.
function hopper(dir: string, trial: number): { cmd: string; hops(): number; hopping(): Promise<boolean> } {
  const script = path.join(dir, 'hop.sh');
  if (!fs.existsSync(script)) fs.writeFileSync(script, '#!/bin/sh\necho $$ >> "$1"\nsetsid sh "$0" "$1" &\n');
  const log = path.join(dir, `hop-${trial}.log`);
  const size = () => (fs.existsSync(log) ? fs.statSync(log).size : 0);
  return {
    cmd: `sh ${script} ${log}`,
    hops: () => size(),
    async hopping() {
      const before = size();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return size() > before;
    },
  };
}

// Starts a daemon and ends its command with `end`, TRIALS times, BATCH at once (each trial mostly
// waits; several daemons hopping at once test the kill harder); every daemon must have hopped,
// and stopped hopping after the end (within settleMs).
const BATCH = 5;
async function everyTrial(z: Zodex, end: (z: Zodex, cmd: string) => Promise<void>, settleMs: number): Promise<void> {
  test.setTimeout(240_000);
  const dir = await z.scratch();
  const trial = async (index: number): Promise<boolean> => {
    const daemon = hopper(dir, index);
    await end(z, daemon.cmd);
    expect(daemon.hops(), 'the daemon started').toBeGreaterThan(0);
    const deadline = Date.now() + settleMs;
    while ((await daemon.hopping()) && Date.now() < deadline) {
      // the normal end kills leftovers just after the result: give it settleMs
    }
    return !(await daemon.hopping());
  };
  let survived = 0;
  for (let first = 0; first < TRIALS; first += BATCH) {
    const ended = await Promise.all(Array.from({ length: Math.min(BATCH, TRIALS - first) }, (_, i) => trial(first + i)));
    survived += ended.filter((gone) => !gone).length;
  }
  fs.rmSync(path.join(dir, 'hop.sh'), { force: true }); // a survivor ends at its next hop
  expect(survived, `${survived} of ${TRIALS} daemons survived`).toBe(0);
}

requirement('hygiene.hopping-daemon-kill', async ({ zodex }) => {
  await everyTrial(
    await zodex(),
    async (z, cmd) => {
      const first = await z.exec({ cmd: `${cmd}; sleep 60`, workdir: '/', yield_time_ms: 300 });
      expect(first.status).toBe('running');
      const killed = await z.write({ session_handle: first.session_handle!, kill_process: true });
      expect(killed).toMatchObject({ status: 'exited', termination_reason: 'killed' });
    },
    0,
  );
});

requirement('hygiene.hopping-daemon-timeout', async ({ zodex }) => {
  await everyTrial(
    await zodex(),
    async (z, cmd) => {
      const result = await z.exec({ cmd: `${cmd}; sleep 60`, workdir: '/', timeout_ms: 400, yield_time_ms: 10_000 });
      expect(result).toMatchObject({ status: 'exited', termination_reason: 'timeout' });
    },
    0,
  );
});

requirement('hygiene.hopping-daemon-exit', async ({ zodex }) => {
  await everyTrial(
    await zodex(),
    async (z, cmd) => {
      const result = await z.exec({ cmd: `${cmd}; sleep 0.3`, workdir: '/', yield_time_ms: 10_000 });
      expect(result).toMatchObject({ status: 'exited', exit_code: 0, termination_reason: 'exit' });
    },
    2_000,
  );
});

requirement('hygiene.cmd-any-bytes', async ({ zodex }) => {
  const z = await zodex();
  // Every byte but NUL, in the words that once ended the command or started its environment,
  // reaches the shell as sent: the command prints its own argument in hex.
  const samples = ['a\u0001\u0002\u007f b', '\n\r\t\u001b]6972;x;x0\u0007', 'é ü 日本 \u{1F600}', 'it\'s "quoted" \\ $HOME `id`', ''];
  for (let code = 1; code < 256; code += 17) samples.push(String.fromCharCode(code, code + 1, code + 2));
  for (const sample of samples) {
    const quoted = `'${sample.replace(/'/g, `'\\''`)}'`;
    const result = await z.exec({ cmd: `printf %s ${quoted} | od -An -v -tx1 | tr -d ' \\n'`, workdir: '/' });
    expect(result.output, JSON.stringify(sample)).toBe(Buffer.from(sample, 'utf8').toString('hex'));
  }
  // NUL is the one byte no process argument can carry: refused, and nothing after it runs.
  const dir = await z.scratch();
  for (const cmd of [`echo A\u0000; touch ${dir}/ran`, `touch ${dir}/ran\u0000\u0000INJ=x`]) {
    const result = await z.call('exec_command', { cmd, workdir: dir });
    expect(result.isError, cmd).toBe(true);
    expect(textOf(result)).toMatch(/NUL/);
  }
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
});
