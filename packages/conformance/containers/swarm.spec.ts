// deploy/swarm/stack.yml on a single-node swarm this test makes and leaves (issue 24): the stack
// is deployed, a client container on its overlay network runs a command and polls it by handle,
// and `docker service scale …=0` lets a call in flight finish while a new request gets 503. What
// the test made (the swarm, the stack's services, network, secret and volumes, the client
// container, docker_gwbridge when it made it) is removed at the end; a daemon that is already in
// a swarm is not touched (the test fails, saying so).

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLIENT_IMAGE, SERVER_IMAGE } from '../harness/docker.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { PACKAGE_ROOT, REPO_ROOT } from '../harness/target.js';

const exec = promisify(execFile);
const docker = async (...args: string[]) => (await exec('docker', args, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
const STACK_FILE = path.join(REPO_ROOT, 'deploy/swarm/stack.yml');

requirement('swarm.stack', async () => {
  test.setTimeout(240_000);
  expect(
    await docker('info', '--format', '{{.Swarm.LocalNodeState}}'),
    'this Docker daemon is already in a swarm the test did not make; it leaves it alone',
  ).toBe('inactive');
  const id = randomBytes(4).toString('hex');
  const stack = `zodex-swarm-${id}`;
  const client = `zodex-swarm-client-${id}`;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-swarm-'));
  const shared = path.join(scratch, 'shared');
  fs.mkdirSync(shared, { mode: 0o777 });
  fs.chmodSync(shared, 0o777);
  const token = randomBytes(24).toString('hex');
  fs.writeFileSync(path.join(scratch, 'token'), token, { mode: 0o600 });
  const hadGwbridge = (await docker('network', 'ls', '--format', '{{.Name}}')).split('\n').includes('docker_gwbridge');
  let joined = false;
  try {
    await docker('swarm', 'init', '--advertise-addr', '127.0.0.1', '--listen-addr', '127.0.0.1:2377');
    joined = true;
    await exec('docker', ['stack', 'deploy', '--resolve-image', 'never', '-c', STACK_FILE, stack], {
      env: { ...process.env, ZODEX_IMAGE: SERVER_IMAGE, ZODEX_TOKEN_FILE: path.join(scratch, 'token') },
      timeout: 120_000,
    });
    const service = `${stack}_workspace-1`;
    // Running and healthy (the image's HEALTHCHECK on the ops port).
    await expect
      .poll(async () => docker('ps', '--filter', `label=com.docker.swarm.service.name=${service}`, '--format', '{{.Status}}'), {
        timeout: 90_000,
        intervals: [1_000],
      })
      .toMatch(/\(healthy\)/);
    const task = await docker('ps', '--filter', `label=com.docker.swarm.service.name=${service}`, '--format', '{{.ID}}');
    const inspect = JSON.parse(await docker('inspect', task))[0];
    expect(inspect.HostConfig.ReadonlyRootfs).toBe(true);
    expect(inspect.Config.User).toBe('10001:10001');

    await docker(
      'run',
      '-d',
      '--name',
      client,
      '--network',
      `${stack}_agents`,
      '-v',
      `${path.join(PACKAGE_ROOT, 'containers/swarm-client.mjs')}:/suite/swarm-client.mjs:ro`,
      '-v',
      `${shared}:/shared`,
      '--entrypoint',
      'node',
      CLIENT_IMAGE,
      '/suite/swarm-client.mjs',
      'workspace-1',
      token,
    );
    const steps = async () =>
      (await docker('logs', client))
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { step: string } & Record<string, unknown>);
    await expect.poll(async () => (await steps()).map((step) => step.step), { timeout: 60_000 }).toContain('in-flight');
    // The call is in flight: scale the workspace to 0 (SIGTERM, 30 s stop_grace_period).
    await docker('service', 'scale', '--detach', `${service}=0`);
    // zodexd got SIGTERM and drains (the call in flight keeps it running).
    await expect
      .poll(async () => (await exec('docker', ['logs', task])).stderr, { timeout: 20_000, intervals: [100] })
      .toMatch(/SIGTERM: new requests get 503/);
    fs.writeFileSync(path.join(shared, 'scaled'), '');
    await expect.poll(async () => (await steps()).map((step) => step.step), { timeout: 60_000 }).toContain('finished');
    const byStep = Object.fromEntries((await steps()).map((step) => [step.step, step]));
    expect(byStep.started).toMatchObject({ status: 'running', handle: true });
    expect(byStep.polled).toMatchObject({ status: 'exited', output: 'polled-by-handle\n', exit_code: 0 });
    expect(byStep['new-request']).toMatchObject({ status: 503, retryAfter: '5' });
    expect(byStep.finished).toMatchObject({ status: 'exited', output: 'survived-the-scale-down\n', exit_code: 0 });
    // The task ended by itself, cleanly, well inside the grace period.
    await expect.poll(async () => docker('inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', task), { timeout: 30_000 }).toBe('exited 0');
    const logs = (await exec('docker', ['logs', task])).stderr;
    expect(logs).not.toContain(token);
    expect(
      logs
        .split('\n')
        .filter(Boolean)
        .every((line) => typeof JSON.parse(line).message === 'string'),
    ).toBe(true);
  } finally {
    await docker('rm', '-f', client).catch(() => undefined);
    if (joined) {
      await docker('stack', 'rm', stack).catch(() => undefined);
      // The stack's network and volumes go once its tasks are gone.
      await expect
        .poll(async () => docker('network', 'ls', '--filter', `label=com.docker.stack.namespace=${stack}`, '-q'), { timeout: 60_000 })
        .toBe('')
        .catch(() => undefined);
      for (const volume of (await docker('volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stack}`).catch(() => ''))
        .split('\n')
        .filter(Boolean)) {
        await expect
          .poll(
            async () =>
              docker('volume', 'rm', volume).then(
                () => 'removed',
                () => 'in use',
              ),
            { timeout: 30_000 },
          )
          .toBe('removed')
          .catch(() => undefined);
      }
      await docker('swarm', 'leave', '--force').catch(() => undefined);
      if (!hadGwbridge) await docker('network', 'rm', 'docker_gwbridge').catch(() => undefined);
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
