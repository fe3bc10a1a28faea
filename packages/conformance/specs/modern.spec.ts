// MCP 2026-07-28 beside 2025-11-25 (issue 15), on the wire: discover, results, era choice on
// stdio and HTTP, the header ladder, errors, subscriptions/listen, cancellation by a closed
// stream, handle ownership, the Agent ID from _meta, progress, and the guardrails in this era.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement } from '../harness/fixtures.js';
import { envelope } from '../harness/modern.js';
import { MCP_HEADERS, initialize, rawRequest } from '../harness/raw-http.js';
import { messagesOf, modernPost, modernRequest, openStream, type ModernReply } from '../harness/raw-modern.js';
import { RawStdio } from '../harness/raw-stdio.js';
import { startHttpServer, stopServer, withServer } from '../harness/target.js';

// One zodexd spoken to raw in the modern era, over the project's transport.
interface Wire {
  request(message: ModernMessage): Promise<ModernReply>;
  // A request left open: its messages as they come; close() cancels it as the transport says.
  open(message: ModernMessage): { messages: ModernReply[]; close(): Promise<void> };
  signal(name: NodeJS.Signals): void;
  stderr(): string;
  close(): Promise<void>;
}
type ModernMessage = ReturnType<typeof modernRequest>;

async function wire(transport: 'stdio' | 'http', args: string[] = []): Promise<Wire> {
  if (transport === 'stdio') {
    const raw = new RawStdio(args);
    return {
      async request(message) {
        await raw.send(message);
        return raw.reply((reply) => reply.id === message.id && (reply.result !== undefined || reply.error !== undefined));
      },
      open(message) {
        const from = raw.replies.length;
        void raw.send(message);
        const mine = (reply: { id?: unknown; params?: Record<string, unknown> }) =>
          reply.id === message.id || (reply.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/subscriptionId'] === message.id;
        const messages: ModernReply[] = [];
        const timer = setInterval(() => messages.splice(0, messages.length, ...(raw.replies.slice(from).filter(mine) as ModernReply[])), 20);
        return {
          messages,
          close: async () => (clearInterval(timer), raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: message.id } })),
        };
      },
      signal: (name) => raw.child.kill(name),
      stderr: () => raw.stderr,
      close: () => raw.close(),
    };
  }
  const server = await startHttpServer(['--mode', 'sprite', ...args]);
  return {
    request: async (message) => (await modernPost(server.url, message)).reply!,
    open(message) {
      const stream = openStream(server.url, message);
      return { messages: stream.messages, close: async () => stream.close() };
    },
    signal: (name) => server.process.kill(name),
    stderr: server.stderr,
    close: () => stopServer(server),
  };
}

async function withWire<T>(transport: 'stdio' | 'http', args: string[], body: (w: Wire) => Promise<T>): Promise<T> {
  const w = await wire(transport, args);
  try {
    return await body(w);
  } finally {
    await w.close();
  }
}

const call = (id: number | string, name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  modernRequest(id, 'tools/call', { name, arguments: args }, meta);
const structured = (reply: ModernReply) => reply.result?.structuredContent as Record<string, unknown>;
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'zodex', version: expect.any(String) } };

requirement('modern.discover', async ({ targetImpl }) => {
  await withWire(targetImpl.transport, [], async (w) => {
    const reply = await w.request(modernRequest('d', 'server/discover'));
    expect(reply.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      instructions: expect.stringMatching(/^zodex remote execution tools/),
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: SERVER_INFO,
    });
  });
});

requirement('modern.results', async ({ targetImpl, zodex }) => {
  const legacyTools = (await (await zodex()).client.listTools()).tools;
  await withWire(targetImpl.transport, ['--mode', 'local'], async (w) => {
    const list = await w.request(modernRequest(1, 'tools/list'));
    expect(list.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public', _meta: SERVER_INFO });
    expect(list.result!.tools).toEqual(legacyTools);
    const ran = await w.request(call(2, 'exec_command', { cmd: 'echo modern', workdir: '/' }));
    expect(ran.result).toMatchObject({ resultType: 'complete', _meta: SERVER_INFO, structuredContent: { status: 'exited', output: 'modern\n' } });
  });
});

requirement('modern.stdio-era', async () => {
  const probe = new RawStdio();
  try {
    expect((await probe.request(1, 'server/discover', { _meta: envelope() })).result?.supportedVersions).toEqual(['2026-07-28']);
    const init = await probe.request(2, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'codex-mcp-client', version: '0.171.0' },
    });
    expect(init.result?.protocolVersion).toBe('2025-06-18');
    await probe.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(await probe.call(3, 'exec_command', { cmd: 'echo legacy', workdir: '/' })).toMatchObject({ output: 'legacy\n' });
  } finally {
    await probe.close();
  }
  const pinned = new RawStdio();
  try {
    expect((await pinned.request(1, 'tools/list', { _meta: envelope() })).result?.resultType).toBe('complete');
    const refused = await pinned.request(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } });
    expect(refused.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
  } finally {
    await pinned.close();
  }
});

requirement('modern.client-text-escaped', async ({ targetImpl }) => {
  const name = 'x\u001b]52;c;ZWNobyBvd25lZAo=\u0007\u001b[2K\rzodexd: oauth: the operator approved "Claude"\u202e';
  await withWire(targetImpl.transport, [], async (w) => {
    const reply = await w.request(modernRequest(1, 'tools/list', {}, { 'io.modelcontextprotocol/clientInfo': { name, version: '1\u009b' } }));
    expect(reply.result?.resultType).toBe('complete');
    await expect
      .poll(() => w.stderr())
      .toContain(
        'request from "x\\u001b]52;c;ZWNobyBvd25lZAo=\\u0007\\u001b[2K\\rzodexd: oauth: the operator approved \\"Claude\\"\\u202e 1\\u009b" ("tools/list")',
      );
    expect(w.stderr()).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(w.stderr()).not.toMatch(/^zodexd: oauth: the operator approved/m);
  });
});

requirement('modern.stdio-refusal-pins-nothing', async () => {
  const refusals: [string, Record<string, unknown>, number][] = [
    ['a 2025 version in _meta', { _meta: envelope({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) }, -32022],
    ['a malformed 2026 envelope', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }, -32602],
  ];
  for (const [what, params, code] of refusals) {
    const probe = new RawStdio();
    try {
      expect((await probe.request(1, 'tools/list', params)).error?.code, what).toBe(code);
      // Refused, so nothing was served: the client may still open the 2025 way.
      const init = await probe.request(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fallback', version: '1' } });
      expect(init.result?.protocolVersion, what).toBe('2025-11-25');
    } finally {
      await probe.close();
    }
  }
});

requirement('modern.http-both-eras', async ({ zodex }) => {
  const z = await zodex();
  const { url, headers } = z.endpoint;
  const session = await initialize(url, headers);
  expect(session.headers['mcp-session-id']).toBeTruthy();
  const modern = await modernPost(url, call(5, 'exec_command', { cmd: 'echo both', workdir: '/' }), headers);
  expect(modern.status).toBe(200);
  expect(modern.headers['mcp-session-id']).toBeUndefined();
  expect(structured(modern.reply!)).toMatchObject({ output: 'both\n' });
  expect((await z.exec({ cmd: 'echo still', workdir: '/' })).output).toBe('still\n'); // the 2025 session goes on
  const get = await rawRequest(url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' } });
  expect(get.status).toBe(405);
});

requirement('modern.lease-any-era', async () => {
  const server = await startHttpServer(['--mode', 'sprite', '--handle-idle-ms', '3000']);
  try {
    const opened = await initialize(server.url);
    const session = { 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
    await rawRequest(server.url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    let id = 100;
    const legacy = async (name: string, args: Record<string, unknown>) => {
      const response = await rawRequest(server.url, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...session },
        body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } }),
      });
      return structured(messagesOf(response).find((message) => message.result !== undefined)!);
    };
    const modern = async (name: string, args: Record<string, unknown>) => structured((await modernPost(server.url, call(id++, name, args))).reply!);
    // A 2025 session's command, polled once in the 2026 era; a 2026 command, polled in the 2025 era only.
    const sessions = (await legacy('exec_command', { cmd: 'sleep 600', workdir: '/', yield_time_ms: 100 })).session_handle as string;
    expect((await modern('write_stdin', { session_handle: sessions, yield_time_ms: 0 })).status).toBe('running');
    const handles = (await modern('exec_command', { cmd: 'sleep 600', workdir: '/', yield_time_ms: 100 })).session_handle as string;
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      for (const handle of [sessions, handles]) expect((await legacy('write_stdin', { session_handle: handle, yield_time_ms: 0 })).status).toBe('running');
    }
    // Unasked for longer than --handle-idle-ms: the 2026 command is killed; the 2025 one lives with its session.
    // (Not polled meanwhile: a poll asks about it, which is what renews the lease.)
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await legacy('write_stdin', { session_handle: handles, yield_time_ms: 5_000 })).toMatchObject({ status: 'exited', termination_reason: 'killed' });
    expect((await legacy('write_stdin', { session_handle: sessions, yield_time_ms: 0 })).status).toBe('running');
  } finally {
    await stopServer(server);
  }
});

requirement('modern.header-ladder', async ({ zodex }) => {
  const z = await zodex();
  const { url, headers } = z.endpoint;
  const dir = await z.scratch();
  const marker = path.posix.join(dir, 'ran');
  const touch = call(9, 'exec_command', { cmd: `touch ${marker}`, workdir: '/' });
  const cases: Record<string, string | null>[] = [
    { 'mcp-protocol-version': null },
    { 'mcp-protocol-version': '2025-11-25' },
    { 'mcp-method': null },
    { 'mcp-method': 'tools/list' },
    { 'mcp-name': null },
    { 'mcp-name': 'write_stdin' },
    { 'mcp-name': '=?base64?%%%?=' },
  ];
  for (const change of cases) {
    const response = await modernPost(url, touch, { ...headers, ...change });
    expect(response.status, JSON.stringify(change)).toBe(400);
    expect(response.reply?.error?.code, JSON.stringify(change)).toBe(-32020);
  }
  expect(await z.readFile(marker)).toBeUndefined();
  const encoded = await modernPost(url, call(10, 'exec_command', { cmd: 'echo encoded', workdir: '/' }), {
    ...headers,
    'mcp-name': `=?base64?${Buffer.from('exec_command').toString('base64')}?=`,
  });
  expect(structured(encoded.reply!)).toMatchObject({ output: 'encoded\n' });
});

requirement('modern.version-method-envelope', async ({ targetImpl }) => {
  const http = targetImpl.transport === 'http';
  const server = http ? await startHttpServer([]) : undefined;
  const stdio = http ? undefined : new RawStdio();
  const ask = async (message: object, status: number): Promise<ModernReply> => {
    if (server) {
      const response = await modernPost(server.url, message);
      expect(response.status, JSON.stringify(message).slice(0, 120)).toBe(status);
      return response.reply!;
    }
    await stdio!.send(message);
    return (await stdio!.reply((reply) => reply.id === (message as { id: unknown }).id)) as ModernReply;
  };
  try {
    const future = await ask(modernRequest(1, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }), 400);
    expect(future.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'], requested: '2099-01-01' } });
    for (const method of ['ping', 'initialize', 'logging/setLevel', 'resources/list']) {
      expect((await ask(modernRequest(`m-${method}`, method), 404)).error?.code, method).toBe(-32601);
    }
    const noCapabilities = { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } };
    const missing = await ask(noCapabilities, 400);
    expect(missing.error?.code).toBe(-32602);
    expect(missing.error?.message).toContain('io.modelcontextprotocol/clientCapabilities');
    const unknown = await ask(call(4, 'no_such_tool', {}), 200);
    expect(unknown.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^UNKNOWN_TOOL: .*exec_command/) });
  } finally {
    if (server) await stopServer(server);
    await stdio?.close();
  }
});

requirement('modern.listen', async ({ targetImpl }) => {
  await withWire(targetImpl.transport, [], async (w) => {
    const listen = w.open(modernRequest('listen:0', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await expect.poll(() => listen.messages.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(listen.messages[0]).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen:0' }, notifications: {} },
    });
    // Other requests are served while it stays open.
    expect((await w.request(modernRequest(2, 'tools/list'))).result?.resultType).toBe('complete');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(listen.messages).toHaveLength(1);
    w.signal('SIGTERM');
    await expect.poll(() => listen.messages.length, { timeout: 10_000 }).toBe(2);
    expect(listen.messages[1]).toMatchObject({
      id: 'listen:0',
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen:0' } },
    });
  });
});

requirement('modern.listen-bounded', async ({ targetImpl }) => {
  await withWire(targetImpl.transport, ['--max-conversations', '2'], async (w) => {
    const listens = ['a', 'b', 'c'].map((id) => w.open(modernRequest(`listen:${id}`, 'subscriptions/listen', { notifications: {} })));
    await expect.poll(() => listens.map((listen) => listen.messages.length), { timeout: 10_000 }).toEqual([2, 1, 1]);
    // The third beyond --max-conversations 2 ended the oldest with its result; the others stay open.
    expect(listens[0]!.messages[1]).toMatchObject({ id: 'listen:a', result: { resultType: 'complete' } });
  });
});

requirement('modern.listen-id-in-use', async () => {
  const raw = new RawStdio();
  try {
    const listen = modernRequest('L', 'subscriptions/listen', { notifications: {} });
    await raw.send(listen);
    await raw.reply((reply) => (reply as { method?: string }).method === 'notifications/subscriptions/acknowledged');
    // The same id again while the first is open: refused, so a cancellation finds the first one.
    await raw.send(listen);
    expect((await raw.reply((reply) => reply.id === 'L' && reply.error !== undefined)).error?.code).toBe(-32600);
    await raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = new Promise((resolve) => raw.child.once('exit', resolve));
    raw.child.kill('SIGTERM');
    await exited;
    // Cancelled, so at shutdown there is no subscription left to complete.
    expect(raw.replies.filter((reply) => reply.id === 'L' && reply.result !== undefined)).toEqual([]);
  } finally {
    await raw.close();
  }
});

requirement('modern.stream-close-cancels', async ({ targetImpl }) => {
  await withWire(targetImpl.transport, ['--max-sessions', '1'], async (w) => {
    const slow = w.open(call('slow', 'exec_command', { cmd: 'sleep 600', workdir: '/', yield_time_ms: 120_000 }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await slow.close();
    // Its command was killed and its slot freed: a new command starts (--max-sessions 1).
    await expect
      .poll(
        async () => {
          const reply = await w.request(call(`next-${Date.now()}`, 'exec_command', { cmd: 'echo next', workdir: '/' }));
          return structured(reply)?.output ?? JSON.stringify(reply.result?.content ?? reply.error).slice(0, 200);
        },
        { timeout: 15_000 },
      )
      .toBe('next\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slow.messages.filter((message) => message.id === 'slow')).toEqual([]);
  });
});

requirement('modern.handle-idle', async ({ targetImpl }) => {
  await withWire(targetImpl.transport, ['--handle-idle-ms', '1500'], async (w) => {
    const idle = structured(await w.request(call(1, 'exec_command', { cmd: 'sleep 600', workdir: '/', yield_time_ms: 100 })));
    const kept = structured(await w.request(call(2, 'exec_command', { cmd: 'sleep 600', workdir: '/', yield_time_ms: 100 })));
    expect(idle.session_handle && kept.session_handle).toBeTruthy();
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(structured(await w.request(call(`poll-${i}`, 'write_stdin', { session_handle: kept.session_handle, yield_time_ms: 0 }))).status).toBe('running');
    }
    const ended = structured(await w.request(call(3, 'write_stdin', { session_handle: idle.session_handle, yield_time_ms: 5_000 })));
    expect(ended).toMatchObject({ status: 'exited', termination_reason: 'killed' });
    expect(w.stderr()).toMatch(/session_handle was unused for 1500 ms \(--handle-idle-ms\)/);
    await w.request(call(4, 'write_stdin', { session_handle: kept.session_handle, kill_process: true }));
  });
});

requirement('modern.agent-id', async ({ targetImpl }) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-modern-agent-')));
  fs.writeFileSync(path.join(root, 'AGENTS.md'), 'GLOBAL-RULE: modern agents.\n');
  try {
    await withWire(
      targetImpl.transport,
      ['--mode', 'local', '--codex-home', root, '--workdir-context', 'off', '--state-dir', path.join(root, 'state')],
      async (w) => {
        const alias = async (id: string, meta: Record<string, unknown>) => structured(await w.request(call(id, 'set_agent_alias', { alias: id }, meta)));
        const first = await w.request(call('a1', 'exec_command', { cmd: 'true', workdir: '/' }, { threadId: 'thread-A' }));
        expect(structured(first).zodex_context).toContain('GLOBAL-RULE: modern agents.');
        const again = await w.request(call('a2', 'exec_command', { cmd: 'true', workdir: '/' }, { threadId: 'thread-A' }));
        expect(structured(again).zodex_context).toBeUndefined();
        const a = await alias('a3', { threadId: 'thread-A' });
        const b = await alias('b1', { threadId: 'thread-B' });
        expect(a.agent_id).toMatch(/^[a-z0-9]{4}$/);
        expect((await alias('a4', { threadId: 'thread-A' })).agent_id).toBe(a.agent_id);
        expect(b.agent_id).not.toBe(a.agent_id);
        expect((await alias('o1', { 'openai/session': 'chat-1' })).agent_id).not.toBe(a.agent_id);
        // No conversation id (Claude Code over HTTP): the clientInfo + peer fallback, stable across calls.
        const f1 = await alias('f1', { 'claudecode/toolUseId': 'tool-1' });
        const f2 = await alias('f2', { 'claudecode/toolUseId': 'tool-2' });
        expect(f2.agent_id).toBe(f1.agent_id);
        expect([a.agent_id, b.agent_id]).not.toContain(f1.agent_id);
      },
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

requirement('modern.progress-own-stream', async ({ zodex }) => {
  const z = await zodex();
  // exec_command reports progress every 5 s of a wait (progress.long-yield).
  const response = await modernPost(
    z.endpoint.url,
    call(1, 'exec_command', { cmd: 'sleep 6; echo done', workdir: '/', yield_time_ms: 20_000 }, { progressToken: 'p1' }),
    z.endpoint.headers,
  );
  expect(response.headers['content-type']).toMatch(/text\/event-stream/);
  const progress = response.messages.filter((message) => message.method === 'notifications/progress');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress[0]!.params).toMatchObject({ progressToken: 'p1' });
  expect(response.messages.at(-1)).toMatchObject({ id: 1, result: { structuredContent: { output: 'done\n' } } });
});

requirement('modern.guardrails', async () => {
  const token = 'modern-token-0123456789abcdef';
  await withServer(['--max-body-bytes', '65536'], async (server) => {
    const list = modernRequest(1, 'tools/list');
    expect((await modernPost(server.url, list, { host: 'evil.example' })).status).toBe(403);
    expect((await modernPost(server.url, list, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await modernPost(server.url, list, { origin: 'http://localhost:3000' })).status).toBe(200);
    const big = call(2, 'apply_patch', { workdir: '/', patch: 'x'.repeat(70_000) });
    const tooLarge = await modernPost(server.url, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toContain('--max-body-bytes');
    for (const pathname of ['/', '/mcp/x', '/MCP']) expect((await modernPost(new URL(pathname, server.url).toString(), list)).status, pathname).toBe(404);
  });
  await withServer(
    [],
    async (server) => {
      const list = modernRequest(1, 'tools/list');
      expect((await modernPost(server.url, list)).status).toBe(401);
      expect((await modernPost(server.url, list, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await modernPost(server.url, list, { authorization: `Bearer ${token}` })).status).toBe(200);
      expect(server.stderr()).not.toContain(token);
    },
    { ZODEX_AUTH_TOKEN: token },
  );
});

requirement('modern.agent-cap', async () => {
  await withServer(['--max-conversations', '1', '--mode', 'sprite'], async (server) => {
    const first = structured(
      (await modernPost(server.url, call(1, 'exec_command', { cmd: 'sleep 3', workdir: '/', yield_time_ms: 100 }, { threadId: 'one' }))).reply!,
    );
    expect(first.status).toBe('running');
    const busy = await modernPost(server.url, call(2, 'exec_command', { cmd: 'true', workdir: '/' }, { threadId: 'two' }));
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBeTruthy();
    expect(busy.reply?.error?.message).toContain('--max-conversations 1');
    await modernPost(server.url, call(3, 'write_stdin', { session_handle: first.session_handle, yield_time_ms: 10_000 }, { threadId: 'one' }));
    expect(structured((await modernPost(server.url, call(4, 'exec_command', { cmd: 'echo two', workdir: '/' }, { threadId: 'two' }))).reply!)).toMatchObject({
      output: 'two\n',
    });
  });
});

requirement('modern.drain', async () => {
  const server = await startHttpServer(['--mode', 'sprite']);
  const inFlight = modernPost(server.url, call(1, 'exec_command', { cmd: 'sleep 2; echo finished', workdir: '/', yield_time_ms: 20_000 }));
  await new Promise((resolve) => setTimeout(resolve, 700));
  server.process.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const newcomer = await rawRequest(server.url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    body: JSON.stringify(modernRequest(2, 'tools/list')),
  }).catch(() => ({ status: 0 }));
  expect([503, 0]).toContain(newcomer.status);
  expect(structured((await inFlight).reply!)).toMatchObject({ status: 'exited', exit_code: 0, output: 'finished\n' });
  expect(await server.exited).toBe(0);
});
