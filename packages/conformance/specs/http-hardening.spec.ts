// Issue 12: HTTP under abuse. A dropped call is cancelled (its command killed, its slot freed);
// slow headers and bodies get 408; open conversations are capped; a drain answers 503.

import http from 'node:http';
import net from 'node:net';
import { expect, requirement } from '../harness/fixtures.js';
import { MCP_HEADERS, initialize, rawRequest } from '../harness/raw-http.js';
import { structuredOf } from '../harness/zodex.js';
import { connectHttp, withServer } from '../harness/target.js';

// An initialized conversation over raw HTTP: its session id.
async function rawSession(url: string): Promise<string> {
  const init = await initialize(url);
  const id = String(init.headers['mcp-session-id']);
  await rawRequest(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': id },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return id;
}

// Opens a raw socket, writes `head` at once, then `drip` one byte per `everyMs`; resolves with
// what the server sent back when it closes the connection (or '' after `giveUpMs`).
function slowRequest(url: string, head: string, drip: string, everyMs: number, giveUpMs: number): Promise<{ text: string; afterMs: number }> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < drip.length && !socket.destroyed) socket.write(drip[sent++]!);
    }, everyMs);
    const finish = () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ text, afterMs: Date.now() - started });
    };
    const giveUp = setTimeout(finish, giveUpMs);
    socket.on('connect', () => socket.write(head));
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', finish);
    socket.on('error', finish);
  });
}

requirement('http.drop-cancels', async () => {
  await withServer(['--max-sessions', '5'], async (server) => {
    const session = await rawSession(server.url);
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'exec_command', arguments: { cmd: 'sleep 600', workdir: '/', yield_time_ms: 120_000 } },
    });
    for (let i = 0; i < 5; i++) {
      const target = new URL(server.url);
      const req = http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-session-id': session },
      });
      req.on('error', () => {});
      req.end(call.replace('"id":9', `"id":${100 + i}`));
      await new Promise((resolve) => setTimeout(resolve, 800));
      req.destroy(); // the client goes away without an answer
    }
    const { client } = await connectHttp(server.url);
    try {
      // Each dropped call's command was killed and its slot freed: a new command can start.
      await expect
        .poll(
          async () => {
            const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo started', workdir: '/' } });
            return result.isError ? JSON.stringify(result.content).slice(0, 200) : structuredOf<{ output: string }>(result).output;
          },
          { timeout: 15_000 },
        )
        .toBe('started\n');
      expect(server.stderr()).toMatch(/closed before its answer; cancelling it/);
    } finally {
      await client.close();
    }
  });
});

requirement('http.body-timeout', async () => {
  await withServer(['--body-timeout-ms', '2000'], async (server) => {
    const { host } = new URL(server.url);
    const head = `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n`;
    const answer = await slowRequest(server.url, head, '{"jsonrpc":"2.0"'.padEnd(200, ' '), 1_000, 20_000);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.text).toMatch(/--body-timeout-ms/);
    expect(answer.afterMs).toBeLessThan(10_000); // closed by the server, not by our give-up
    expect((await initialize(server.url)).status).toBe(200); // and it keeps serving
  });
});

requirement('http.headers-timeout', async () => {
  await withServer(['--headers-timeout-ms', '2000'], async (server) => {
    const { host } = new URL(server.url);
    const answer = await slowRequest(server.url, 'POST /mcp HTTP/1.1\r\n', `Host: ${host}\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`, 1_000, 20_000);
    expect(answer.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.afterMs).toBeLessThan(10_000);
    expect((await initialize(server.url)).status).toBe(200);
  });
});

requirement('http.conversation-cap', async () => {
  await withServer(['--max-conversations', '3'], async (server) => {
    // Three busy conversations (a command running in each): a fourth cannot be admitted.
    const clients = [];
    const handles: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { client } = await connectHttp(server.url);
      const started = structuredOf<{ status: string; session_handle: string }>(
        await client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 30', workdir: '/', yield_time_ms: 100 } }),
      );
      expect(started.status).toBe('running');
      clients.push(client);
      handles.push(started.session_handle);
    }
    const refused = await initialize(server.url);
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body).toMatch(/--max-conversations 3/);
    // Once one conversation's command is gone, that conversation is idle and makes room.
    await clients[0]!.callTool({ name: 'write_stdin', arguments: { session_handle: handles[0]!, kill_process: true } });
    expect((await initialize(server.url)).status).toBe(200);
    const stillBusy = await clients[1]!.callTool({ name: 'write_stdin', arguments: { session_handle: handles[1]!, yield_time_ms: 0 } });
    expect(structuredOf<{ status: string }>(stillBusy).status).toBe('running');
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
  });
  await withServer(['--max-conversations', '3'], async (server) => {
    // Idle conversations (no call, no command) are evicted oldest first.
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await rawSession(server.url));
    const ping = (id: string) =>
      rawRequest(server.url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-session-id': id },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    await ping(ids[0]!); // the first is now more recent than the second
    const fourth = await rawSession(server.url);
    expect((await ping(fourth)).status).toBe(200);
    expect((await ping(ids[1]!)).status).toBe(404); // the oldest idle one went
    expect((await ping(ids[0]!)).status).toBe(200);
    expect((await ping(ids[2]!)).status).toBe(200);
  });
});

requirement('http.drain-503', async () => {
  await withServer(['--drain-ms', '8000'], async (server) => {
    const { client } = await connectHttp(server.url);
    const inFlight = client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 3; echo finished', workdir: '/', yield_time_ms: 20_000 } });
    await new Promise((resolve) => setTimeout(resolve, 700));
    server.process.kill('SIGTERM');
    await expect.poll(() => server.stderr(), { timeout: 5_000 }).toMatch(/SIGTERM: new requests get 503/);
    const newcomer = await initialize(server.url);
    expect(newcomer.status).toBe(503);
    expect(newcomer.headers['retry-after']).toBe('5');
    expect(newcomer.headers.connection).toBe('close');
    expect(structuredOf<{ output: string }>(await inFlight).output).toBe('finished\n');
    expect(await server.exited).toBe(0);
  });
});

requirement('http.guard-bounded-quotes', async () => {
  await withServer([], async (server) => {
    const long = `${'a'.repeat(4_000)}.example`;
    const host = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_HEADERS, host: long }, body: '{}' });
    expect(host.status).toBe(403);
    expect(host.body).toMatch(/^Forbidden: invalid Host header "a{200}"… and 3,808 more characters\./);
    expect(host.body.length).toBeLessThan(1_000);
    const origin = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_HEADERS, origin: `https://${long}` }, body: '{}' });
    expect(origin.status).toBe(403);
    expect(origin.body).toMatch(/^Forbidden: invalid Origin header "https:\/\/a{192}"… and 3,816 more characters\./);
    expect(origin.body.length).toBeLessThan(1_000);
  });
});
