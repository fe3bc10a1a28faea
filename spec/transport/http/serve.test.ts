// serveHttp's contract with app/, driven with a bare SDK server from a fake factory: drain()
// answers newcomers 503 while a call in flight finishes, and resolves when it has; close() then
// closes every conversation and the listener. No zodex runtime, no signals, no exit.

import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { guardPolicy } from '../../../src/net/guard.js';
import { serveHttp, type HttpServing } from '../../../src/transport/http/serve.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// One initialize on a fresh connection (fetch would reuse a pooled one the drain closed).
function post(url: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: HEADERS, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(INITIALIZE);
  });
}

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close('test over');
  serving = undefined;
});

async function start() {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const opened: string[] = [];
  const closed: string[] = [];
  const lines: string[] = [];
  serving = await serveHttp({
    listen: { host: '127.0.0.1', port: 0 },
    guard: guardPolicy({ host: '127.0.0.1', port: 0 }, [], undefined),
    maxBodyBytes: 1 << 20,
    bodyTimeoutMs: 5_000,
    headersTimeoutMs: 5_000,
    idleMs: 60_000,
    maxConversations: 4,
    hasRunningCommand: () => false,
    log: (line) => lines.push(line),
    open: (id) => {
      opened.push(id);
      const server = new McpServer({ name: 'fake', version: '0' });
      server.registerTool('hold', { description: 'waits until released' }, async () => {
        await held;
        return { content: [{ type: 'text', text: 'released' }] };
      });
      return { connect: (transport) => server.connect(transport), close: async () => void closed.push(id) };
    },
  });
  return { serving, release, opened, closed, lines };
}

describe('serveHttp', () => {
  it('reports the bound address and serves /mcp there', async () => {
    const { serving: served, lines } = await start();
    expect(served.address.host).toBe('127.0.0.1');
    expect(served.url).toBe(`http://127.0.0.1:${served.address.port}/mcp`);
    expect(lines).toContain(`serving over http on ${served.url}`);
    expect((await post(served.url)).status).toBe(200);
  });

  it('drains: newcomers get 503 while a call finishes, then close() ends the conversation and the listener', async () => {
    const { serving: served, release, opened, closed, lines } = await start();
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    const call = client.callTool({ name: 'hold', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 100));
    let drained = false;
    const drain = served.drain('SIGTERM', 10_000).then(() => (drained = true));
    expect(lines.at(-1)).toBe('SIGTERM: new requests get 503; letting 1 call(s) in flight finish (up to 10000 ms)');
    expect(await post(served.url)).toEqual({ status: 503, retryAfter: '5' });
    expect(drained).toBe(false);
    release();
    expect(await call).toMatchObject({ content: [{ type: 'text', text: 'released' }] });
    await drain;
    await served.close('SIGTERM');
    expect(closed).toEqual(opened);
    await expect(post(served.url)).rejects.toThrow(/ECONNREFUSED/);
    await client.close().catch(() => {});
  });

  it('drain() with nothing in flight resolves at once', async () => {
    const { serving: served } = await start();
    const started = Date.now();
    await served.drain('SIGINT', 10_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
