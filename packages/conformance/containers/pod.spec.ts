// The image as a pod runs it (issue 24): zodex:local with its own non-root user, a read-only root
// filesystem, every capability dropped and no-new-privileges, /tmp a tmpfs, the workspace and
// zodexd's state (history, control socket, spill files) on volumes, the token a mounted file, a
// root-only service-account token beside it; probed through the ops port as a kubelet would, then
// stopped with SIGTERM as at the end of a pod's life.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { StartedTestContainer } from 'testcontainers';
import { SERVER_IMAGE } from '../harness/docker.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { rawRequest } from '../harness/raw-http.js';
import { structuredOf } from '../harness/zodex.js';

const run = promisify(execFile);
const TOKEN = 'pod-conformance-token-0123456789abcdef';
const UID = 10001;
const GRACE_S = 15;

test.describe.configure({ mode: 'serial' });

let container: StartedTestContainer | undefined;
let scratch: string | undefined;
let mcpUrl = '';
let opsUrl = '';

async function connect(): Promise<Client> {
  const client = new Client({ name: 'pod-conformance', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

test.beforeAll(async () => {
  test.skip(process.env.ZODEX_DOCKER_UNAVAILABLE !== undefined, `skipped: no Docker (${process.env.ZODEX_DOCKER_UNAVAILABLE})`);
  test.setTimeout(120_000);
  const { GenericContainer, Wait } = await import('testcontainers');
  // The pod's settings that testcontainers has no method for: the read-only root filesystem and
  // no-new-privileges (securityContext readOnlyRootFilesystem, allowPrivilegeEscalation: false).
  class PodContainer extends GenericContainer {
    asPod(): this {
      this.hostConfig.ReadonlyRootfs = true;
      this.hostConfig.SecurityOpt = ['no-new-privileges'];
      return this;
    }
  }
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-pod-'));
  const dirs = { workspace: path.join(scratch, 'workspace'), state: path.join(scratch, 'state'), secrets: path.join(scratch, 'secrets') };
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir);
  // Volumes owned by the pod's user (what fsGroup does for a volume claim).
  fs.chownSync(dirs.workspace, UID, UID);
  fs.chownSync(dirs.state, UID, UID);
  // The token as a Secret volume mounts it (root's, readable by the pod's group); the
  // service-account token readable by root alone.
  fs.writeFileSync(path.join(dirs.secrets, 'token'), `${TOKEN}\n`, { mode: 0o440 });
  fs.chownSync(path.join(dirs.secrets, 'token'), 0, UID);
  fs.writeFileSync(path.join(dirs.secrets, 'sa-token'), 'service-account-token-root-only\n', { mode: 0o600 });
  container = await new PodContainer(SERVER_IMAGE)
    .asPod()
    .withCommand(['--transport', 'http', '--mode', 'sprite', '--auth-token-file', '/var/run/secrets/zodex/token', '--drain-ms', '10000'])
    .withDroppedCapabilities('ALL')
    .withTmpFs({ '/tmp': 'rw,nosuid,nodev,size=64m,mode=1777' })
    .withBindMounts([
      { source: dirs.workspace, target: '/workspace', mode: 'rw' },
      { source: dirs.state, target: '/var/lib/zodex', mode: 'rw' },
      { source: path.join(dirs.secrets, 'token'), target: '/var/run/secrets/zodex/token', mode: 'ro' },
      { source: path.join(dirs.secrets, 'sa-token'), target: '/var/run/secrets/kubernetes.io/serviceaccount/token', mode: 'ro' },
    ])
    .withExposedPorts(7391, 9464)
    // The image's own HEALTHCHECK command, checked every second instead of every 30 s.
    .withHealthCheck({ test: ['CMD', 'node', '/app/docker/healthcheck.mjs'], interval: 1_000, timeout: 3_000, retries: 5, startPeriod: 1_000 })
    .withWaitStrategy(Wait.forAll([Wait.forHttp('/readyz', 9464).forStatusCode(200), Wait.forHealthCheck()]))
    .withStartupTimeout(60_000)
    .start();
  mcpUrl = `http://${container.getHost()}:${container.getMappedPort(7391)}/mcp`;
  opsUrl = `http://${container.getHost()}:${container.getMappedPort(9464)}`;
});

test.afterAll(async () => {
  await container?.stop({ timeout: 1_000 }).catch(() => undefined);
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

requirement('image.pod', async () => {
  const inspect = JSON.parse((await run('docker', ['inspect', container!.getId()])).stdout)[0];
  expect(inspect.Config.User).toBe(`${UID}:${UID}`); // the image's own user: no --user was given
  expect(inspect.HostConfig.ReadonlyRootfs).toBe(true);
  expect(inspect.State.Health.Status).toBe('healthy');
  expect((await rawRequest(`${opsUrl}/healthz`)).status).toBe(200);
  expect((await rawRequest(`${opsUrl}/readyz`)).status).toBe(200);
  const client = await connect();
  try {
    const where = structuredOf<{ output: string; exit_code: number }>(
      await client.callTool({
        name: 'exec_command',
        arguments: {
          cmd: 'id -u; touch /root-probe 2>&1 | sed "s/.*: //"; cat /var/run/secrets/kubernetes.io/serviceaccount/token 2>&1 | sed "s/.*: //"; echo pod > /workspace/written && cat /workspace/written; echo tmp > /tmp/t && cat /tmp/t',
          workdir: '/workspace',
        },
      }),
    );
    expect(where.output.split('\n')).toEqual([String(UID), 'Read-only file system', 'Permission denied', 'pod', 'tmp', '']);
    expect(fs.readFileSync(path.join(scratch!, 'workspace', 'written'), 'utf8')).toBe('pod\n');
    // More output than the inline limit spills, to the state volume.
    const spilled = structuredOf<{ output_file?: string }>(
      await client.callTool({ name: 'exec_command', arguments: { cmd: 'head -c 40000 /dev/zero | tr "\\0" y', workdir: '/workspace' } }),
    );
    expect(spilled.output_file).toMatch(/^\/var\/lib\/zodex\/spill\/spill-[A-Za-z0-9]{6}\/out-.*\.txt$/);
    expect(fs.statSync(path.join(scratch!, 'state', spilled.output_file!.slice('/var/lib/zodex/'.length))).size).toBe(40_000);
    expect(fs.existsSync(path.join(scratch!, 'state', 'state', 'zodex.db'))).toBe(true);
    const metrics = (await rawRequest(`${opsUrl}/metrics`)).body;
    expect(metrics).toMatch(/^zodex_commands_started_total 2$/m);
    expect(metrics).toMatch(/^zodex_info\{version="[^"]+",mode="sprite",transport="http"\} 1$/m);
  } finally {
    await client.close();
  }
});

requirement('image.sigterm-grace', async () => {
  const client = await connect();
  const inFlight = client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 3; echo finished', workdir: '/workspace', yield_time_ms: 20_000 } });
  await expect.poll(async () => /^zodex_commands_running 1$/m.test((await rawRequest(`${opsUrl}/metrics`)).body), { timeout: 10_000 }).toBe(true);
  const started = Date.now();
  const stopped = run('docker', ['stop', '-t', String(GRACE_S), container!.getId()]);
  await expect.poll(async () => (await rawRequest(`${opsUrl}/readyz`).catch(() => ({ status: 0 }))).status, { timeout: 2_000, intervals: [50, 100] }).toBe(503);
  const result = structuredOf<{ output: string; exit_code: number }>(await inFlight);
  expect(result).toMatchObject({ exit_code: 0, output: 'finished\n' });
  await stopped;
  const took = Date.now() - started;
  const state = JSON.parse((await run('docker', ['inspect', container!.getId()])).stdout)[0].State;
  expect(state.ExitCode).toBe(0);
  expect(state.OOMKilled).toBe(false);
  expect(took).toBeLessThan(GRACE_S * 1000 - 5_000); // not killed at the end of the grace period
  await client.close().catch(() => undefined);
});
