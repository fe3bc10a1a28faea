// The compose demo (issue 6): examples/mcp_http/sandbox brought up and down with the standalone
// docker-compose, as its README says; the scripted agent's transcript must report every step.

import { execFileSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { CLIENT_IMAGE, SERVER_IMAGE } from '../harness/docker.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { REPO_ROOT } from '../harness/target.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

requirement('compose.demo', async () => {
  test.setTimeout(180_000);
  const { DockerComposeEnvironment, Wait } = await import('testcontainers');
  const port = await freePort();
  const project = `zodexdemo${process.pid}`;
  const environment = await new DockerComposeEnvironment(path.join(REPO_ROOT, 'examples/mcp_http/sandbox'), 'docker-compose.yml')
    .withClientOptions({ executable: { standalone: true, executablePath: 'docker-compose' } })
    .withEnvironment({ ZODEX_IMAGE: SERVER_IMAGE, ZODEX_CLIENT_IMAGE: CLIENT_IMAGE, ZODEX_PORT: String(port) })
    .withProjectName(project)
    // The demo publishes zodexd on 127.0.0.1 only. testcontainers' default wait dials published
    // ports at the Docker bridge gateway when it runs inside a container (/.dockerenv), which a
    // loopback-only publish never answers; the image's own healthcheck is the right signal, and
    // the published port is checked below from where the README's user dials it.
    .withWaitStrategy('zodexd_1', Wait.forHealthCheck())
    .withWaitStrategy('agent_1', Wait.forOneShotStartup())
    .withStartupTimeout(120_000)
    .up();
  try {
    // The agent is a one-shot container that can end before testcontainers lists what runs (it
    // then knows no agent_1): read it by name from Docker, which keeps it until `down`.
    const agent = `${project}_agent_1`;
    const state = () => execFileSync('docker', ['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', agent], { encoding: 'utf8' }).trim();
    await expect.poll(state, { timeout: 60_000 }).toMatch(/^exited /);
    const transcript = execFileSync('docker', ['logs', agent], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(state()).toBe('exited 0');
    expect(transcript).toContain('agent: tools: exec_command, write_stdin, apply_patch');
    expect(transcript).toMatch(/agent: ok: a command runs in the sandbox/);
    expect(transcript).toMatch(/agent: ok: a patch applies/);
    expect(transcript).toMatch(/agent: ok: an interactive session answers/);
    // The interactive step passes a short yield instead of waiting out the 10 s default.
    expect(transcript).toMatch(/agent: exec_command: still running after [0-4]\.\ds; use session_handle H to poll/);
    expect(transcript).toContain('agent: transcript complete: all steps passed');

    // The published port answers on the host's loopback, and without the token it is refused.
    const refused = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);

    // One init only: the image's tini is PID 1, so it never warns that it is not.
    const serverLogs = await environment.getContainer('zodexd_1').logs();
    let serverLog = '';
    await new Promise<void>((resolve) => {
      serverLogs.on('data', (chunk: Buffer | string) => (serverLog += chunk.toString()));
      serverLogs.on('end', () => resolve());
      setTimeout(resolve, 2_000); // a running container's log stream stays open
    });
    expect(serverLog).toContain('serving over http on');
    expect(serverLog).not.toContain('Tini is not running as PID 1');
  } finally {
    await environment.down({ timeout: 5_000 });
  }
});
