// Streamable HTTP (seed 003, issue 5): the endpoint, the Host and Origin rules, the token, the
// body limit, sessions owning their commands, drain, and the official conformance suite.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, requirement, test } from '../harness/fixtures.js';
import { INITIALIZE, MCP_HEADERS, initialize, rawRequest } from '../harness/raw-http.js';
import { structuredOf } from '../harness/zodex.js';
import { connectHttp, packageDir, startHttpServer, withServer } from '../harness/target.js';

const run = promisify(execFile);
const TOKEN = 'conformance-token-0123456789abcdef';

function withHost(url: string, host: string): [string, Record<string, string>] {
  return [url, { host }];
}

requirement('http.serving-line', async () => {
  await withServer([], async (server) => {
    const match = /serving over http on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(server.stderr());
    expect(match).not.toBeNull();
    expect(Number(match![1])).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${match![1]}/mcp`);
    expect((await initialize(server.url)).status).toBe(200);
  });
});

requirement('http.path-404', async ({ zodex }) => {
  const z = await zodex();
  const { url, headers } = z.endpoint;
  const base = new URL(url);
  for (const pathname of ['/', '/mcp/x', '/MCP', '/sse', '/mcp2']) {
    for (const method of ['GET', 'POST']) {
      const response = await rawRequest(new URL(pathname, base).toString(), {
        method,
        headers: { ...MCP_HEADERS, ...headers },
        body: method === 'POST' ? INITIALIZE() : undefined,
      });
      expect(response.status, `${method} ${pathname}`).toBe(404);
    }
  }
  expect((await initialize(url, headers)).status).toBe(200);
});

requirement('http.stateful', async ({ zodex }) => {
  const z = await zodex();
  const { url, headers } = z.endpoint;
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    const response = await initialize(url, headers, version);
    expect(response.status, version).toBe(200);
    expect(response.headers['mcp-session-id'], version).toMatch(/^[\x21-\x7e]{16,}$/);
    expect((response.message as { result: { protocolVersion: string } }).result.protocolVersion).toBe(version);
  }
});

requirement('http.host-loopback', async () => {
  await withServer([], async (server) => {
    const port = new URL(server.url).port;
    for (const host of ['127.0.0.1', `127.0.0.1:${port}`, '127.1.2.3', 'localhost', `LOCALHOST:${port}`, '[::1]', `[::1]:${port}`]) {
      const response = await initialize(...withHost(server.url, host));
      expect(response.status, host).toBe(200);
    }
  });
});

requirement('http.host-foreign', async () => {
  await withServer([], async (server) => {
    const base = new URL(server.url);
    for (const host of ['evil.example', 'evil.example:80', '10.0.0.1', 'host.docker.internal', '127.0.0.1.nip.io', '']) {
      for (const [method, pathname] of [
        ['POST', '/mcp'],
        ['GET', '/mcp'],
        ['DELETE', '/mcp'],
        ['GET', '/'],
        ['OPTIONS', '/anything'],
      ] as const) {
        const response = await rawRequest(new URL(pathname, base).toString(), {
          method,
          headers: { ...MCP_HEADERS, host },
          body: method === 'POST' ? INITIALIZE() : undefined,
        });
        expect(response.status, `${method} ${pathname} Host: ${host}`).toBe(403);
        expect(response.body).toMatch(/^Forbidden: invalid Host header/);
        expect(response.body).toContain('--allow-host');
      }
    }
    const named = await initialize(...withHost(server.url, 'evil.example:8080'));
    expect(named.body).toContain('--allow-host evil.example');
  });
});

requirement('http.allow-host', async () => {
  await withServer(['--allow-host', 'host.docker.internal', '--allow-host', 'Sandbox.Local'], async (server) => {
    for (const host of ['host.docker.internal', 'host.docker.internal:7391', 'HOST.DOCKER.INTERNAL:1', 'sandbox.local', 'sandbox.local:99', '127.0.0.1']) {
      expect((await initialize(...withHost(server.url, host))).status, host).toBe(200);
    }
    for (const host of ['docker.internal', 'host.docker.internal.evil', 'evil.example']) {
      expect((await initialize(...withHost(server.url, host))).status, host).toBe(403);
    }
  });
  // the environment fallback, as a comma list
  await withServer(
    [],
    async (server) => {
      expect((await initialize(...withHost(server.url, 'b.example'))).status).toBe(200);
      expect((await initialize(...withHost(server.url, 'c.example'))).status).toBe(403);
    },
    { ZODEX_ALLOW_HOST: 'a.example,b.example' },
  );
});

function nonLoopbackAddress(): string | undefined {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return undefined;
}

requirement('http.non-loopback-bind', async () => {
  const address = nonLoopbackAddress();
  expect(address, 'this machine needs a non-loopback IPv4 address for this test').toBeDefined();
  const { runZodexd } = await import('../harness/process.js');
  const refused = await runZodexd(['--transport', 'http', '--listen', `${address}:0`], { ZODEX_AUTH_TOKEN: '' });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/token is required/);
  await withServer(
    ['--listen', `${address}:0`],
    async (server) => {
      expect(server.stderr()).toMatch(/warning: listening on non-loopback/);
      expect(server.stderr()).not.toContain(TOKEN);
      // no Host rule: any Host is served once the token is right
      const response = await initialize(server.url, { host: 'anything.example', authorization: `Bearer ${TOKEN}` });
      expect(response.status).toBe(200);
      expect((await initialize(server.url, { host: 'anything.example' })).status).toBe(401);
    },
    { ZODEX_AUTH_TOKEN: TOKEN },
  );
  await withServer(['--listen', `${address}:0`, '--insecure-no-auth'], async (server) => {
    expect(server.stderr()).toMatch(/WARNING: --insecure-no-auth/);
    expect((await initialize(server.url, { host: 'anything.example' })).status).toBe(200);
  });
});

requirement('http.origin', async () => {
  await withServer(['--allow-host', 'trusted.example'], async (server) => {
    for (const origin of ['https://evil.example', 'http://evil.example:7391', 'null', 'http://127.0.0.1.evil.example']) {
      const response = await initialize(server.url, { origin });
      expect(response.status, origin).toBe(403);
      expect(response.body).toMatch(/^Forbidden: invalid Origin header/);
    }
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost', 'http://[::1]:8080', 'https://trusted.example']) {
      expect((await initialize(server.url, { origin })).status, origin).toBe(200);
    }
    expect((await initialize(server.url)).status).toBe(200);
  });
});

requirement('http.token', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-token-'));
  const file = path.join(dir, 'token');
  fs.writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
  try {
    for (const [args, env] of [
      [['--auth-token-file', file], {}],
      [[], { ZODEX_AUTH_TOKEN: TOKEN }],
    ] as const) {
      await withServer(
        [...args],
        async (server) => {
          for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, 'Bearer']) {
            const response = await initialize(server.url, authorization ? { authorization } : {});
            expect(response.status, String(authorization)).toBe(401);
            expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
            expect(response.body).not.toContain(TOKEN);
          }
          expect((await initialize(server.url, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
          // a real client with the token runs a command
          const { client } = await connectHttp(server.url, { authorization: `Bearer ${TOKEN}` });
          const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo authorized', workdir: '/' } });
          expect((result.structuredContent as { output: string }).output).toBe('authorized\n');
          await client.close();
          expect(server.stderr()).not.toContain(TOKEN);
        },
        { ...env },
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

requirement('http.body-size', async () => {
  test.setTimeout(120_000);
  await withServer(['--max-body-bytes', String(12 * 1024 * 1024)], async (server) => {
    const { client } = await connectHttp(server.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-body-'));
    try {
      const line = `+${'x'.repeat(99)}\n`;
      const lines = Math.ceil((8 * 1024 * 1024) / line.length);
      const patch = `*** Begin Patch\n*** Add File: big.txt\n${line.repeat(lines)}*** End Patch\n`;
      expect(patch.length).toBeGreaterThan(8 * 1024 * 1024);
      const result = await client.callTool({ name: 'apply_patch', arguments: { workdir: dir, patch } }, undefined, { timeout: 60_000 });
      expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
      expect(fs.statSync(path.join(dir, 'big.txt')).size).toBe(lines * 100);
      const tooBig = await rawRequest(server.url, { method: 'POST', headers: MCP_HEADERS, body: Buffer.alloc(13 * 1024 * 1024, 0x20) });
      expect(tooBig.status).toBe(413);
      expect(tooBig.body).toContain(String(12 * 1024 * 1024));
      await client.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

requirement('http.drain', async () => {
  const server = await startHttpServer([]);
  const { client } = await connectHttp(server.url);
  const inFlight = client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 2; echo finished', workdir: '/', yield_time_ms: 20_000 } });
  await new Promise((resolve) => setTimeout(resolve, 700));
  server.process.kill('SIGTERM');
  const result = structuredOf<{ output: string; status: string; exit_code: number }>(await inFlight);
  expect(result).toMatchObject({ status: 'exited', exit_code: 0, output: 'finished\n' });
  expect(await server.exited).toBe(0);
  // and no new connection is accepted after that
  await expect(rawRequest(server.url)).rejects.toThrow();
});

requirement('http.delete-kills', async ({ zodex }) => {
  const z = await zodex();
  const { url, headers } = z.endpoint;
  const dir = await z.scratch();
  const { client, transport } = await connectHttp(url, headers);
  const started = structuredOf<{ status: string }>(
    await client.callTool({ name: 'exec_command', arguments: { cmd: `sleep 300 & echo $! > '${dir}/pid'; wait`, workdir: dir, yield_time_ms: 800 } }),
  );
  expect(started.status).toBe('running');
  const pid = (await z.sh(`cat '${dir}/pid'`)).trim();
  expect(await z.sh(`kill -0 ${pid} && echo alive`)).toBe('alive\n');
  await (transport as unknown as { terminateSession(): Promise<void> }).terminateSession();
  await expect.poll(async () => (await z.sh(`kill -0 ${pid} 2>/dev/null && echo alive || echo gone`)).trim(), { timeout: 5_000 }).toBe('gone');
  await client.close();
});

requirement('http.idle-expiry', async () => {
  await withServer(['--http-idle-ms', '1500'], async (server) => {
    const { client } = await connectHttp(server.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-idle-'));
    try {
      await client.callTool({ name: 'exec_command', arguments: { cmd: `echo $$ > '${dir}/pid'; exec sleep 300`, workdir: dir, yield_time_ms: 500 } });
      const pid = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      expect(alive()).toBe(true);
      await expect.poll(alive, { timeout: 8_000 }).toBe(false);
      expect(server.stderr()).toMatch(/idle for \d+s: closing it and killing its commands/);
      await expect(client.callTool({ name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } })).rejects.toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

requirement('http.concurrent-sessions', async ({ zodex }) => {
  const z = await zodex();
  const { url, headers } = z.endpoint;
  const clients = await Promise.all(Array.from({ length: 8 }, () => connectHttp(url, headers)));
  const results = await Promise.all(
    clients.map(({ client }, i) =>
      client.callTool({ name: 'exec_command', arguments: { cmd: `sleep 0.5; echo conversation-${i}`, workdir: '/', yield_time_ms: 20_000 } }),
    ),
  );
  results.forEach((result, i) => expect((result.structuredContent as { output: string }).output).toBe(`conversation-${i}\n`));
  await Promise.all(clients.map(({ client }) => client.close()));
});

requirement('http.official-suite', async () => {
  test.setTimeout(120_000);
  await withServer([], async (server) => {
    const bin = path.join(packageDir('@modelcontextprotocol/conformance'), 'dist/index.js');
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection']) {
      const { stdout } = await run(process.execPath, [bin, 'server', '--url', server.url, '--scenario', scenario], { timeout: 60_000 });
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
      expect(summary, `${scenario}:\n${stdout}`).not.toBeNull();
      expect(summary![1], scenario).toBe(summary![2]);
      expect(summary![3], scenario).toBe('0');
    }
  });
});
