// The operations listener (--ops-listen) and fleet logs (--log-format json), issue 24: health,
// readiness that turns off the moment a drain starts, Prometheus metrics that move with calls in
// both eras, the MCP listener still 404 beside it, and JSON log lines.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import { runZodexd } from '../harness/process.js';
import { INITIALIZE, MCP_HEADERS, rawRequest } from '../harness/raw-http.js';
import { modernPost, modernRequest } from '../harness/raw-modern.js';
import { structuredOf } from '../harness/zodex.js';
import { connectHttp, startHttpServer, stopServer, withServer } from '../harness/target.js';

const OPS = ['--ops-listen', '127.0.0.1:0'];
const TOKEN = 'ops-conformance-token-0123456789abcdef';

// The ops URL zodexd logged (port 0 picks one), once it is there.
async function opsUrlOf(stderr: () => string): Promise<string> {
  await expect.poll(() => /ops listener on (http:\/\/\S+) /.exec(stderr())?.[1], { timeout: 10_000 }).toBeTruthy();
  return /ops listener on (http:\/\/\S+) /.exec(stderr())![1]!;
}

const get = (url: string, headers: Record<string, string> = {}, method = 'GET') => rawRequest(url, { method, headers });

// The value of one sample of the exposition, e.g. zodex_tool_calls_total{tool="exec_command",outcome="ok"}.
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inside = /\{([^}]*)\}/.exec(line)?.[1] ?? '';
    const have = inside === '' ? [] : inside.split(',');
    if (wanted.every((pair) => have.includes(pair)) && have.length === wanted.length) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

requirement('ops.paths', async () => {
  await withServer(OPS, async (server) => {
    const ops = await opsUrlOf(server.stderr);
    const health = await get(`${ops}/healthz`);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
    // Local mode: ready once the login shell's environment is captured (up to 5 s on a loaded machine).
    await expect.poll(async () => (await get(`${ops}/readyz`)).status, { timeout: 10_000 }).toBe(200);
    expect(JSON.parse((await get(`${ops}/readyz`)).body)).toEqual({ status: 'ready' });
    const metrics = await get(`${ops}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.body).toMatch(/^# HELP zodex_tool_calls_total /m);
    expect(metrics.body).toMatch(/^# TYPE zodex_tool_call_duration_seconds histogram$/m);
    expect(sample(metrics.body, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(metrics.body).toMatch(/^zodex_info\{version="[^"]+",mode="local",transport="http"\} 1$/m);
    const head = await get(`${ops}/metrics`, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    for (const other of ['/', '/mcp', '/metrics/x', '/HEALTHZ', '/health']) expect((await get(`${ops}${other}`)).status).toBe(404);
    const post = await get(`${ops}/healthz`, {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    // The MCP listener is unchanged: every path but /mcp is 404.
    for (const opsPath of ['/healthz', '/readyz', '/metrics']) expect((await get(server.url.replace(/\/mcp$/, opsPath))).status).toBe(404);
  });
});

requirement('ops.refusals', async () => {
  for (const value of ['0.0.0.0:9464', '[::]:9464', ':9464']) {
    const flag = await runZodexd(['--transport', 'http', '--ops-listen', value]);
    expect(flag.code).toBe(2);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toMatch(/--ops-listen .*(wildcard|not HOST:PORT)/);
    const env = await runZodexd(['--transport', 'http'], { ZODEX_OPS_LISTEN: value });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/ZODEX_OPS_LISTEN=.*(wildcard|not HOST:PORT)/); // named as given (issue 23)
  }
  await withServer(OPS, async (server) => {
    const ops = await opsUrlOf(server.stderr);
    const foreign = await get(`${ops}/metrics`, { host: 'attacker.example:80' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatch(/invalid Host header/);
    expect((await get(`${ops}/readyz`, { origin: 'http://attacker.example' })).status).toBe(403);
  });
  await withServer([], async (server) => {
    expect(server.stderr()).not.toMatch(/ops listener/);
  });
});

requirement('ops.readiness-drain', async () => {
  const server = await startHttpServer(OPS);
  try {
    const ops = await opsUrlOf(server.stderr);
    const { client } = await connectHttp(server.url);
    const inFlight = client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 2; echo finished', workdir: '/', yield_time_ms: 20_000 } });
    await expect.poll(async () => sample((await get(`${ops}/metrics`)).body, 'zodex_commands_running'), { timeout: 10_000 }).toBe(1);
    expect((await get(`${ops}/readyz`)).status).toBe(200);
    server.process.kill('SIGTERM');
    // From the moment the drain starts: not ready, still alive, the gauge says so.
    await expect.poll(async () => (await get(`${ops}/readyz`)).status, { timeout: 1_000, intervals: [20, 50, 100] }).toBe(503);
    const ready = await get(`${ops}/readyz`);
    expect(JSON.parse(ready.body)).toEqual({ status: 'not ready', reason: 'draining' });
    expect((await get(`${ops}/healthz`)).status).toBe(200);
    expect(sample((await get(`${ops}/metrics`)).body, 'zodex_draining')).toBe(1);
    const result = structuredOf<{ output: string; status: string; exit_code: number }>(await inFlight);
    expect(result).toMatchObject({ status: 'exited', exit_code: 0, output: 'finished\n' });
    expect(await server.exited).toBe(0);
  } finally {
    await stopServer(server);
  }
});

requirement('ops.metrics-move', async () => {
  const spill = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-ops-spill-'));
  try {
    await withServer([...OPS, '--spill-dir', spill, '--inline-limit-bytes', '1024'], async (server) => {
      const ops = await opsUrlOf(server.stderr);
      const metrics = async () => (await get(`${ops}/metrics`)).body;
      const before = await metrics();
      expect(sample(before, 'zodex_tool_calls_total', { tool: 'exec_command', outcome: 'ok' })).toBe(0);
      expect(sample(before, 'zodex_http_sessions')).toBe(0);
      // 2025-11-25: a session, two calls that run, one refused, one still running.
      const { client } = await connectHttp(server.url);
      await client.callTool({ name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } });
      await client.callTool({ name: 'exec_command', arguments: { cmd: 'head -c 5000 /dev/zero | tr "\\0" x', workdir: '/' } });
      await client.callTool({ name: 'exec_command', arguments: { cmd: 'true', workdir: 'relative' } });
      const running = structuredOf<{ session_handle: string }>(
        await client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 30', workdir: '/', yield_time_ms: 100 } }),
      );
      let now = await metrics();
      expect(sample(now, 'zodex_tool_calls_total', { tool: 'exec_command', outcome: 'ok' })).toBe(3);
      expect(sample(now, 'zodex_tool_calls_total', { tool: 'exec_command', outcome: 'WORKDIR_NOT_ABSOLUTE' })).toBe(1);
      expect(sample(now, 'zodex_tool_call_duration_seconds_count', { tool: 'exec_command' })).toBe(4);
      expect(sample(now, 'zodex_commands_started_total')).toBe(3);
      expect(sample(now, 'zodex_commands_running')).toBe(1);
      expect(sample(now, 'zodex_http_sessions')).toBe(1);
      expect(sample(now, 'zodex_spill_files')).toBeGreaterThanOrEqual(1);
      expect(sample(now, 'zodex_spill_bytes')).toBeGreaterThanOrEqual(5000);
      await client.callTool({ name: 'write_stdin', arguments: { session_handle: running.session_handle, kill_process: true } });
      // 2026-07-28: no session; the call is counted and its agent known.
      const modern = await modernPost(
        server.url,
        modernRequest(1, 'tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } }, { threadId: 'ops-metrics' }),
      );
      expect(modern.reply?.result).toBeDefined();
      now = await metrics();
      expect(sample(now, 'zodex_tool_calls_total', { tool: 'exec_command', outcome: 'ok' })).toBe(4);
      expect(sample(now, 'zodex_tool_calls_total', { tool: 'write_stdin', outcome: 'ok' })).toBe(1);
      expect(sample(now, 'zodex_agents')).toBe(1);
      expect(sample(now, 'zodex_commands_ended_total', { reason: 'killed' })).toBe(1);
      expect(sample(now, 'zodex_commands_ended_total', { reason: 'exit' })).toBe(3);
      expect(sample(now, 'zodex_commands_running')).toBe(0);
      expect(sample(now, 'zodex_tool_calls_in_flight')).toBe(0);
      expect(sample(now, 'zodex_sandbox_refusals_total', { kind: 'write' })).toBe(0);
      await client.close();
    });
  } finally {
    fs.rmSync(spill, { recursive: true, force: true });
  }
});

requirement('ops.log-json', async () => {
  const usage = await runZodexd(['--log-format', 'json', '--listen', '127.0.0.1:1']);
  expect(usage.code).toBe(2);
  expect(JSON.parse(usage.stderr.trim())).toMatchObject({ level: 'error', message: expect.stringMatching(/--listen only applies to --transport http/) });
  const server = await startHttpServer(['--log-format', 'json', '--handle-idle-ms', '1000'], { ZODEX_AUTH_TOKEN: TOKEN });
  try {
    const auth = { authorization: `Bearer ${TOKEN}` };
    // A 2026-07-28 command nobody polls is killed: the line names its agent and the handle's start.
    const started = await modernPost(
      server.url,
      modernRequest(1, 'tools/call', { name: 'exec_command', arguments: { cmd: 'sleep 30', workdir: '/', yield_time_ms: 100 } }, { threadId: 'ops-log' }),
      auth,
    );
    const handle = (started.reply?.result?.structuredContent as { session_handle: string }).session_handle;
    await expect.poll(() => server.stderr(), { timeout: 10_000 }).toMatch(/session_handle was unused/);
    // A 2025 call whose connection drops is cancelled: the line names the request and session.
    const init = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_HEADERS, ...auth }, body: INITIALIZE() });
    const session = init.headers['mcp-session-id'] as string;
    const headers = { ...MCP_HEADERS, ...auth, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await rawRequest(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const target = new URL(server.url);
    const dropped = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers });
    dropped.on('error', () => undefined);
    dropped.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'req-\u001b[31m-77',
        method: 'tools/call',
        params: { name: 'exec_command', arguments: { cmd: 'sleep 5', workdir: '/', yield_time_ms: 5000 } },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    dropped.destroy();
    await expect.poll(() => server.stderr(), { timeout: 10_000 }).toMatch(/closed before its answer/);
    server.process.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const text = server.stderr();
    expect(text).not.toContain(TOKEN);
    expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/.test(text)).toBe(false);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of lines) {
      expect(typeof line.time === 'string' && !Number.isNaN(Date.parse(line.time))).toBe(true);
      expect(['info', 'warn', 'error']).toContain(line.level);
      expect(typeof line.message).toBe('string');
    }
    expect(lines.find((line) => /serving over http on/.test(line.message as string))).toMatchObject({ level: 'info' });
    const killed = lines.find((line) => /session_handle was unused/.test(line.message as string));
    expect(killed).toMatchObject({ handle: handle.slice(0, 6), agent: expect.stringMatching(/^\S{4}$/) });
    expect(JSON.stringify(killed)).not.toContain(handle);
    expect(lines.find((line) => /closed before its answer/.test(line.message as string))).toMatchObject({ request: 'req-\\u001b[31m-77', session }); // the client's ESC, written as \\u001b
  } finally {
    await stopServer(server);
  }
});

requirement('ops.hundred-agents', async () => {
  test.setTimeout(120_000);
  await withServer(OPS, async (server) => {
    const ops = await opsUrlOf(server.stderr);
    const call = (id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'exec_command', arguments: { cmd: 'echo ok', workdir: '/' } } });
    const outputOf = (body: string) => {
      const data = body.split('\n').find((line) => line.startsWith('data: {')) ?? body;
      return JSON.parse(data.replace(/^data: /, '')) as { result?: { isError?: boolean; structuredContent?: { output?: string } } };
    };
    // 2025-11-25: each agent its own session; 2026-07-28: each agent its own threadId.
    const legacy = Array.from({ length: 50 }, async () => {
      const init = await rawRequest(server.url, { method: 'POST', headers: MCP_HEADERS, body: INITIALIZE() });
      const headers = { ...MCP_HEADERS, 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
      await rawRequest(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      const outputs: unknown[] = [];
      for (let i = 0; i < 3; i++) outputs.push(outputOf((await rawRequest(server.url, { method: 'POST', headers, body: call(i + 2) })).body).result);
      return outputs;
    });
    const modern = Array.from({ length: 50 }, async (_, agent) => {
      const outputs: unknown[] = [];
      for (let i = 0; i < 3; i++)
        outputs.push(
          (
            await modernPost(
              server.url,
              modernRequest(i + 1, 'tools/call', { name: 'exec_command', arguments: { cmd: 'echo ok', workdir: '/' } }, { threadId: `agent-${agent}` }),
            )
          ).reply?.result,
        );
      return outputs;
    });
    const results = (await Promise.all([...legacy, ...modern])).flat() as { isError?: boolean; structuredContent?: { output?: string } }[];
    expect(results).toHaveLength(300);
    expect(results.filter((result) => result?.isError || result?.structuredContent?.output !== 'ok\n')).toEqual([]);
    const metrics = (await get(`${ops}/metrics`)).body;
    expect(sample(metrics, 'zodex_tool_calls_total', { tool: 'exec_command', outcome: 'ok' })).toBe(300);
    expect(sample(metrics, 'zodex_http_sessions')).toBe(50);
    expect(sample(metrics, 'zodex_agents')).toBe(50);
  });
});
