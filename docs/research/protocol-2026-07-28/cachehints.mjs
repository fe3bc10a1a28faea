import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';
const h = createMcpHandler(() => { const s = new McpServer({ name: 'c', version: '1' }, { capabilities: { tools: {} }, cacheHints: { 'tools/list': { ttlMs: 300000, cacheScope: 'public' }, 'server/discover': { ttlMs: 3600000, cacheScope: 'public' } } }); s.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] })); return s; });
const ENV = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
for (const m of ['tools/list', 'server/discover']) {
  const r = await h.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': m }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: m, params: { _meta: ENV } }) }));
  const j = await r.json(); console.log(m, r.status, j.result.ttlMs, j.result.cacheScope);
}
const r = await h.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', origin: 'http://evil.example' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENV } }) }));
console.log('foreign Origin through bare createMcpHandler:', r.status);
await h.close();
