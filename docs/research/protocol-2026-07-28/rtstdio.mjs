// Isolated: raw JSON-RPC over stdio to the v2 server, modern vs legacy, sequential, 300 calls each.
import { spawn } from 'node:child_process'; import { performance } from 'node:perf_hooks';
const ENV = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
function open(args) { const p = spawn(process.execPath, ['server.mjs', ...args], { stdio: ['pipe', 'pipe', 'ignore'] }); let buf = '', id = 0; const w = new Map();
  p.stdout.on('data', d => { buf += d; let i; while ((i = buf.indexOf('\n')) >= 0) { const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1); if (w.has(m.id)) { w.get(m.id)(m); w.delete(m.id); } } });
  return { p, req: (method, params) => new Promise(r => { const k = ++id; w.set(k, r); p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: k, method, params }) + '\n'); }) }; }
const q = a => a.sort((x, y) => x - y)[a.length >> 1].toFixed(3);
for (const [label, args, modern] of [['v2 modern', ['v2', 'stdio'], true], ['v2 legacy', ['v2', 'stdio'], false], ['v1 legacy', ['v1', 'stdio'], false]]) {
  const s = open(args);
  if (!modern) { await s.req('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'r', version: '1' } }); s.p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); }
  const call = () => s.req('tools/call', { name: 'echo', arguments: { text: 'x' }, ...(modern ? { _meta: ENV } : {}) });
  for (let i = 0; i < 50; i++) await call();
  const t = []; for (let i = 0; i < 300; i++) { const t0 = performance.now(); await call(); t.push(performance.now() - t0); }
  const lt = []; for (let i = 0; i < 100; i++) { const t0 = performance.now(); await s.req('tools/list', modern ? { _meta: ENV } : {}); lt.push(performance.now() - t0); }
  console.log(label.padEnd(10), 'tools/call p50', q(t), 'ms  tools/list p50', q(lt), 'ms'); s.p.kill();
}
