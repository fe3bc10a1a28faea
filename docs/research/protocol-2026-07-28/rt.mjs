// Round-trip time of a trivial tools/call (echo), p50/p90 over N interleaved calls.
// Run: node rt.mjs [N=300]   (Node 20; servers from server.mjs)
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Client as C2, StreamableHTTPClientTransport as H2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as S2 } from '@modelcontextprotocol/client/stdio';
import { Client as C1 } from 'v1sdk/client/index.js';
import { StdioClientTransport as S1 } from 'v1sdk/client/stdio.js';
import { StreamableHTTPClientTransport as H1 } from 'v1sdk/client/streamableHttp.js';

const N = +(process.argv[2] ?? 300), WARM = 30;
const procs = []; let lastPid = null;
import { readFileSync } from 'node:fs';
const cpuMs = pid => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (+f[11] + +f[12]) * 10; };
function startHttp(args) {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, ['server.mjs', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    procs.push(p); lastPid = p.pid;
    p.stderr.on('data', d => { const m = /LISTEN (\d+)/.exec(d.toString()); if (m) res(`http://127.0.0.1:${m[1]}/mcp`); });
    p.on('exit', c => rej(new Error('exit ' + c)));
  });
}
const modern = () => new C2({ name: 'rt-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
const legacy = () => new C1({ name: 'rt-v1', version: '1' });
const configs = [
  ['v2 server, modern era (v2 client), stdio', () => modern(), () => new S2({ command: process.execPath, args: ['server.mjs', 'v2', 'stdio'] })],
  ['v2 server, legacy era (v1 client), stdio', () => legacy(), () => new S1({ command: process.execPath, args: ['server.mjs', 'v2', 'stdio'] })],
  ['v1 server, legacy (v1 client), stdio', () => legacy(), () => new S1({ command: process.execPath, args: ['server.mjs', 'v1', 'stdio'] })],
  ['v2 server, modern era (v2 client), HTTP', () => modern(), async () => new H2(new URL(await startHttp(['v2', 'http', '0', 'sessionful'])))],
  ['v2 server, legacy era sessionful (v1 client), HTTP', () => legacy(), async () => new H1(new URL(await startHttp(['v2', 'http', '0', 'sessionful'])))],
  ['v2 server, legacy era stateless createMcpHandler (v1 client), HTTP', () => legacy(), async () => new H1(new URL(await startHttp(['v2', 'http', '0', 'stateless'])))],
  ['v1 server, legacy sessionful (v1 client), HTTP', () => legacy(), async () => new H1(new URL(await startHttp(['v1', 'http', '0'])))],
];

// ---- raw JSON-RPC clients (no SDK on the client side: isolates server cost) ----
import http from 'node:http';
const ENV = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
function rawStdio(args) {
  const p = spawn(process.execPath, ['server.mjs', ...args], { stdio: ['pipe', 'pipe', 'ignore'] }); procs.push(p); lastPid = p.pid;
  let buf = '', id = 0; const wait = new Map();
  p.stdout.on('data', d => { buf += d; let i; while ((i = buf.indexOf('\n')) >= 0) { const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1); if (m.id !== undefined && wait.has(m.id)) { wait.get(m.id)(m); wait.delete(m.id); } } });
  const req = (method, params) => new Promise(r => { const k = ++id; wait.set(k, r); p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: k, method, params }) + '\n'); });
  return { req, note: (method, params) => p.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n') };
}
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function post(url, headers, body) {
  return new Promise((res, rej) => { const r = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, resp => { let b = ''; resp.on('data', d => b += d); resp.on('end', () => res({ status: resp.statusCode, headers: resp.headers, body: b })); }); r.on('error', rej); r.end(JSON.stringify(body)); });
}
const parse = b => JSON.parse(b.startsWith('{') ? b : b.split('\n').filter(l => l.startsWith('data:')).pop().slice(5));
async function rawModernStdio(args) { const s = rawStdio(args); return () => s.req('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: ENV }); }
async function rawLegacyStdio(args) { const s = rawStdio(args); await s.req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }); s.note('notifications/initialized'); return () => s.req('tools/call', { name: 'echo', arguments: { text: 'x' } }); }
async function rawModernHttp(args) { const u = await startHttp(args); let id = 0; return async () => parse((await post(u, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: ENV } })).body).result; }
async function rawLegacyHttp(args) { const u = await startHttp(args); const i = await post(u, {}, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }); const sid = i.headers['mcp-session-id']; const h = { 'mcp-protocol-version': '2025-11-25', ...(sid ? { 'mcp-session-id': sid } : {}) }; await post(u, h, { jsonrpc: '2.0', method: 'notifications/initialized' }); let id = 0; return async () => parse((await post(u, h, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } })).body).result; }
const rawConfigs = [
  ['RAW client -> v2 server modern, stdio', () => rawModernStdio(['v2', 'stdio'])],
  ['RAW client -> v2 server legacy, stdio', () => rawLegacyStdio(['v2', 'stdio'])],
  ['RAW client -> v1 server legacy, stdio', () => rawLegacyStdio(['v1', 'stdio'])],
  ['RAW client -> v2 server modern, HTTP', () => rawModernHttp(['v2', 'http', '0', 'sessionful'])],
  ['RAW client -> v2 server legacy sessionful, HTTP', () => rawLegacyHttp(['v2', 'http', '0', 'sessionful'])],
  ['RAW client -> v1 server legacy sessionful, HTTP', () => rawLegacyHttp(['v1', 'http', '0'])],
];
const clients = [];
for (const [name, mkClient, mkTransport] of configs) {
  const c = mkClient(); const tr = await mkTransport(); await c.connect(tr); const pid = tr.pid ?? lastPid;
  const r = await c.callTool({ name: 'echo', arguments: { text: 'x' } });
  if (r.content?.[0]?.text !== 'x') throw new Error(name + ' bad result ' + JSON.stringify(r));
  clients.push({ name, c, t: [], pid });
}
for (const [name, mk] of rawConfigs) { const call = await mk(); const r = await call(); const res = r.result ?? r; if (res.content?.[0]?.text !== 'x') throw new Error(name + ' bad ' + JSON.stringify(r)); clients.push({ name, c: { callTool: call, close: async () => {} }, t: [], pid: lastPid }); }
for (let i = 0; i < WARM + N; i++) {
  if (i === WARM) for (const k of clients) k.cpu0 = cpuMs(k.pid);
  for (const k of clients) {
    const t0 = performance.now();
    await k.c.callTool({ name: 'echo', arguments: { text: 'x' } });
    if (i >= WARM) k.t.push(performance.now() - t0);
  }
}
for (const k of clients) k.cpu = (cpuMs(k.pid) - k.cpu0) / N;
const q = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
console.log(`node ${process.version}, ${N} calls each, interleaved, after ${WARM} warm-up`);
console.log('config'.padEnd(70), 'p50 ms', ' p90 ms', ' server CPU ms/call');
for (const k of clients) console.log(k.name.padEnd(70), q(k.t, 0.5).toFixed(3).padStart(6), q(k.t, 0.9).toFixed(3).padStart(7), k.cpu.toFixed(3).padStart(8));
for (const k of clients) await k.c.close().catch(() => {});
for (const p of procs) p.kill();
