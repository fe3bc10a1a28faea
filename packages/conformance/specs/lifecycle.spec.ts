// Lifecycles: the server ends, by stdin closing or a signal, and takes every command with it.

import { expect, requirement } from '../harness/fixtures.js';
import { alive } from '../harness/process.js';
import type { Zodex } from '../harness/zodex.js';

// Starts a command whose process tree (child, grandchild, a setsid daemon) reports its pids.
async function startTree(z: Zodex): Promise<number[]> {
  const dir = await z.scratch();
  const cmd = `(sleep 300 & echo $! > pid1; sh -c 'sleep 300 & echo $! > pid2; wait' & setsid sh -c 'echo $$ > pid3; sleep 300' & wait)`;
  const first = await z.exec({ cmd, workdir: dir, yield_time_ms: 1_500 });
  expect(first.status).toBe('running');
  const pids = (await z.sh(`cat pid1 pid2 pid3`, dir)).trim().split('\n').map(Number);
  expect(pids).toHaveLength(3);
  return pids;
}

requirement('lifecycle.stdin-close', async ({ zodex }) => {
  const z = await zodex();
  const pids = await startTree(z);
  for (const pid of pids) expect(alive(pid)).toBe(true);
  const server = z.server;
  const closedAt = Date.now();
  server.process.stdin!.end();
  const code = await server.exited;
  expect(Date.now() - closedAt).toBeLessThan(1_000);
  expect(code).toBe(0);
  await expect.poll(() => pids.filter(alive), { timeout: 5_000 }).toEqual([]);
});

requirement('lifecycle.signals', async ({ zodex }) => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const z = await zodex();
    const pids = await startTree(z);
    const server = z.server;
    const sentAt = Date.now();
    server.process.kill(signal);
    const code = await server.exited;
    expect(Date.now() - sentAt, signal).toBeLessThan(z.target.transport === 'http' ? 12_000 : 2_000);
    expect(code, signal).toBe(0);
    await expect.poll(() => pids.filter(alive), { timeout: 5_000 }).toEqual([]);
  }
  // even SIGKILL of the server leaves no command behind (zodex-spawn watches its parent)
  const z = await zodex();
  const pids = await startTree(z);
  z.server.process.kill('SIGKILL');
  await z.server.exited;
  await expect.poll(() => pids.filter(alive), { timeout: 3_000 }).toEqual([]);
});
