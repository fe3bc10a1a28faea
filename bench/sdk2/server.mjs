// The SDK choices of issue 15, as minimal servers with one `echo` tool, for bench/modern-roundtrip.mjs:
// node server.mjs <v2|v1> <stdio|http> [port] [sessionful|stateless]   (v2: @modelcontextprotocol/server 2.4.0
// + @modelcontextprotocol/node 2.1.2, both eras on one endpoint; v1: @modelcontextprotocol/sdk 1.32.2)
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import * as z from 'zod';
const [impl, transport, port = '0', legacyMode = 'sessionful'] = process.argv.slice(2);
const log = (...a) => process.stderr.write(a.join(' ') + '\n');

function addTools(server, era) {
  server.registerTool('echo', { description: 'echo text', inputSchema: z.object({ text: z.string() }) }, async ({ text }, ctx) => {
    const meta = ctx?.mcpReq?._meta,
      env = ctx?.mcpReq?.envelope;
    if (process.env.LOG_META) log('META', era, JSON.stringify({ meta, env, sessionId: ctx?.sessionId ?? ctx?.sessionId }));
    return { content: [{ type: 'text', text }] };
  });
  server.registerTool(
    'slow',
    { description: 'waits ms, progress every 100ms, honours abort', inputSchema: z.object({ ms: z.number().int() }) },
    async ({ ms }, ctx) => {
      const signal = ctx?.mcpReq?.signal ?? ctx?.signal;
      const token = (ctx?.mcpReq?._meta ?? ctx?._meta)?.progressToken;
      const notify = ctx?.mcpReq?.notify ?? ctx?.sendNotification;
      const t0 = Date.now();
      while (Date.now() - t0 < ms) {
        if (signal?.aborted) {
          log('ABORTED', era, Date.now() - t0);
          throw new Error('aborted');
        }
        if (token !== undefined) await notify({ method: 'notifications/progress', params: { progressToken: token, progress: Date.now() - t0, total: ms } });
        await new Promise((r) => setTimeout(r, 100));
      }
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    },
  );
  return server;
}

if (impl === 'v2') {
  const { McpServer, createMcpHandler, isLegacyRequest } = await import('@modelcontextprotocol/server');
  const factory = (ctx) => addTools(new McpServer({ name: 'mini-v2', version: '0.0.1' }, { capabilities: { tools: {} } }), ctx?.era ?? 'legacy');
  if (transport === 'stdio') {
    const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
    serveStdio(factory, { onerror: (e) => log('ERR', e.message) });
  } else {
    const { toNodeHandler, toWebRequest, NodeStreamableHTTPServerTransport } = await import('@modelcontextprotocol/node');
    let handle;
    if (legacyMode === 'stateless') {
      handle = toNodeHandler(createMcpHandler(factory));
    } else {
      const modern = toNodeHandler(createMcpHandler(factory, { legacy: 'reject' }));
      const sessions = new Map();
      handle = async (req, res) => {
        const sid = req.headers['mcp-session-id'];
        const chunks = [];
        for await (const c of req) chunks.push(c);
        const raw = Buffer.concat(chunks).toString();
        const body = raw ? JSON.parse(raw) : undefined;
        const legacy = await isLegacyRequest(await toWebRequest(req, body), body);
        if (!legacy) return modern(req, res, body);
        if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res, body);
        if (body?.method !== 'initialize') {
          res.writeHead(404).end();
          return;
        }
        const t = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, t) });
        t.onclose = () => sessions.delete(t.sessionId);
        await factory({ era: 'legacy' }).connect(t);
        return t.handleRequest(req, res, body);
      };
    }
    const srv = createServer((req, res) => {
      if (new URL(req.url, 'http://x').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      handle(req, res).catch((e) => {
        log('ERR', e.stack);
        res.writeHead(500).end();
      });
    });
    srv.listen(+port, '127.0.0.1', () => log('LISTEN', srv.address().port));
  }
} else {
  const { McpServer } = await import('v1sdk/server/mcp.js');
  const mk = () => addTools(new McpServer({ name: 'mini-v1', version: '0.0.1' }), 'v1');
  if (transport === 'stdio') {
    const { StdioServerTransport } = await import('v1sdk/server/stdio.js');
    await mk().connect(new StdioServerTransport());
  } else {
    const { StreamableHTTPServerTransport } = await import('v1sdk/server/streamableHttp.js');
    const sessions = new Map();
    const srv = createServer(async (req, res) => {
      if (new URL(req.url, 'http://x').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const sid = req.headers['mcp-session-id'];
      if (sid && sessions.has(sid)) return sessions.get(sid).handleRequest(req, res);
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => sessions.set(id, t) });
      t.onclose = () => sessions.delete(t.sessionId);
      await mk().connect(t);
      return t.handleRequest(req, res);
    });
    srv.listen(+port, '127.0.0.1', () => log('LISTEN', srv.address().port));
  }
}
