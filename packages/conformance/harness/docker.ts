// The container targets' plumbing, on Docker Engine through testcontainers 11.9 (ryuk off: its
// image cannot be pulled here): the images, the Sprite-mode sandbox (zodexd in a container),
// and the containerized client (this suite in a container, dialing zodexd on the host).

import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './target.js';

process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

export const SERVER_IMAGE = process.env.ZODEX_IMAGE ?? 'zodex:local';
export const CLIENT_IMAGE = process.env.ZODEX_CLIENT_IMAGE ?? 'zodex-client:local';
export const CODEX_CORPUS = process.env.ZODEX_CODEX_CORPUS ?? path.resolve(REPO_ROOT, '../shared/corpus/codex-apply-patch');
export const SANDBOX_TOKEN = 'sandbox-conformance-token-0123456789';

const run = promisify(execFile);

// undefined when Docker answers; otherwise why not.
export function dockerUnavailable(): string | undefined {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 15_000 });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n').pop();
    return stderr || (error as Error).message;
  }
}

// Builds (or confirms, in about a second) the images from this working tree. When .ci/run
// already builds them in the background, waits for that build instead of starting another.
export async function ensureImages(): Promise<void> {
  const statusFile = process.env.ZODEX_IMAGE_BUILD_STATUS;
  if (!statusFile) {
    await run(path.join(REPO_ROOT, 'docker/build-images.sh'), [], { timeout: 15 * 60_000, maxBuffer: 16 * 1024 * 1024 });
    return;
  }
  const deadline = Date.now() + 15 * 60_000;
  let status = '';
  while ((status = fs.readFileSync(statusFile, 'utf8').trim()) === '') {
    if (Date.now() > deadline) throw new Error('the background image build did not finish within 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  if (status !== '0') {
    const log = process.env.ZODEX_IMAGE_BUILD_LOG ? fs.readFileSync(process.env.ZODEX_IMAGE_BUILD_LOG, 'utf8').slice(-6_000) : '';
    throw new Error(`docker/build-images.sh failed (exit ${status}):\n${log}`);
  }
}

export interface Sandbox {
  url: string;
  token: string;
  containerId: string;
  stop(): Promise<void>;
}

// zodexd inside a container: Sprite mode, HTTP on the container's own name, token required.
export async function startSandbox(): Promise<Sandbox> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(SERVER_IMAGE)
    .withCommand(['--transport', 'http', '--mode', 'sprite'])
    .withEnvironment({ ZODEX_AUTH_TOKEN: SANDBOX_TOKEN })
    .withExposedPorts(7391)
    .withWaitStrategy(Wait.forLogMessage(/serving over http on http:\/\/\S+:7391\/mcp/))
    .withStartupTimeout(60_000)
    .start();
  return {
    url: `http://${container.getHost()}:${container.getMappedPort(7391)}/mcp`,
    token: SANDBOX_TOKEN,
    containerId: container.getId(),
    stop: async () => {
      await container.stop({ timeout: 2_000 });
    },
  };
}

export interface ClientRun {
  exitCode: number;
  output: string;
  results: { targets: string[]; rows: { id: string; results: Record<string, string> }[] } | undefined;
}

// Runs the suite inside the client image against `url`, with the host's network and
// host.docker.internal mapped to this host's loopback (so the client sends
// `Host: host.docker.internal:PORT`, which zodexd admits only with --allow-host).
export async function runClientSuite(url: string, extraArgs: string[] = []): Promise<ClientRun> {
  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-client-results-'));
  fs.chmodSync(resultsDir, 0o777);
  // `docker run --rm`: the one-shot container goes when it exits, whatever its status (a
  // testcontainers one-shot stayed behind, exited, after every run).
  const args = ['run', '--rm', '--network', 'host', '--add-host', 'host.docker.internal:127.0.0.1', '-v', `${resultsDir}:/results:rw`];
  args.push('-e', `ZODEX_NO_SKIP=${process.env.ZODEX_NO_SKIP ?? ''}`);
  if (fs.existsSync(CODEX_CORPUS)) args.push('-v', `${CODEX_CORPUS}:/corpus:ro`, '-e', 'ZODEX_CODEX_CORPUS=/corpus');
  args.push(CLIENT_IMAGE, '--url', url, '--profile', 'all', ...extraArgs);
  let output: string;
  let exitCode: number;
  try {
    const { stdout, stderr } = await run('docker', args, { timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024 });
    [output, exitCode] = [`${stdout}${stderr}`, 0];
  } catch (error) {
    const failed = error as Error & { code?: number | string; stdout?: string; stderr?: string };
    [output, exitCode] = [`${failed.stdout ?? ''}${failed.stderr ?? ''}\n${failed.message}`, typeof failed.code === 'number' ? failed.code : 1];
  }
  const file = path.join(resultsDir, 'requirements.json');
  const results = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as ClientRun['results']) : undefined;
  fs.rmSync(resultsDir, { recursive: true, force: true });
  return { exitCode, output, results };
}

// A one-off command in the client image: on the host network with host.docker.internal mapped
// to this host's loopback (default), or on Docker's default bridge with it mapped to the
// bridge gateway ('bridge', Docker Engine's `host-gateway`).
export async function runInClientImage(entrypoint: string[], network: 'host' | 'bridge' = 'host'): Promise<string> {
  const where =
    network === 'host' ? ['--network', 'host', '--add-host', 'host.docker.internal:127.0.0.1'] : ['--add-host', 'host.docker.internal:host-gateway'];
  const { stdout } = await run('docker', ['run', '--rm', ...where, '--entrypoint', entrypoint[0]!, CLIENT_IMAGE, ...entrypoint.slice(1)], {
    timeout: 5 * 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

// The address of Docker's default bridge on this host (docker0, 172.17.0.1 unless configured
// otherwise); Docker 20.10 leaves the gateway out of `docker network inspect bridge`.
export function bridgeGateway(): string {
  const address = os.networkInterfaces().docker0?.find((entry) => entry.family === 'IPv4')?.address;
  if (!address) throw new Error('no docker0 interface with an IPv4 address: is Docker Engine running with its default bridge?');
  return address;
}
