// Checks progress, cancellation (stream close / notifications/cancelled) and _meta visibility.
import { spawn } from 'node:child_process';
const ENV = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
const srv = spawn(process.execPath, ['server.mjs', 'v2', 'http', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LOG_META: '1' } });
let errlog = ''; const url = await new Promise(r => srv.stderr.on('data', d => { errlog += d; const m = /LISTEN (\d+)/.exec(d); if (m) r(`http://127.0.0.1:${m[1]}/mcp`); }));
const H = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' };
// 1. progress on the request's own stream, then abort (close the stream)
const ac = new AbortController();
const r = await fetch(url, { method: 'POST', signal: ac.signal, headers: { ...H, 'mcp-name': 'slow' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { ms: 5000 }, _meta: { ...ENV, progressToken: 'p1', 'com.example/conversationId': 'conv-42' } } }) });
console.log('HTTP modern slow: status', r.status, r.headers.get('content-type'));
const rd = r.body.getReader(); let got = ''; const t0 = Date.now();
while (Date.now() - t0 < 450) { const { value } = await rd.read(); got += new TextDecoder().decode(value); }
console.log('first SSE frames:', got.split('\n').filter(l => l.startsWith('data:')).slice(0, 2).join(' | '));
ac.abort(); await new Promise(r => setTimeout(r, 700));
console.log('server stderr after abort:', errlog.split('\n').filter(l => l.startsWith('ABORTED')).join(';') || '(no ABORTED)');
// 2. _meta seen by the handler (modern)
await fetch(url, { method: 'POST', headers: { ...H, 'mcp-name': 'echo' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'm' }, _meta: { ...ENV, 'com.example/conversationId': 'conv-42' } } }) }).then(r => r.text());
await new Promise(r => setTimeout(r, 200));
console.log('handler META line (modern):', errlog.split('\n').filter(l => l.startsWith('META modern')).pop());
srv.kill();
// 3. stdio modern: notifications/cancelled
const st = spawn(process.execPath, ['server.mjs', 'v2', 'stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LOG_META: '1' } });
let so = '', se = ''; st.stdout.on('data', d => so += d); st.stderr.on('data', d => se += d); await new Promise(r => setTimeout(r, 1500));
st.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: { ms: 5000 }, _meta: { ...ENV, progressToken: 7 } } }) + '\n');
await new Promise(r => setTimeout(r, 350));
st.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'test' } }) + '\n');
await new Promise(r => setTimeout(r, 500));
console.log('stdio modern: lines out', so.trim().split('\n').length, 'first:', so.split('\n')[0]);
console.log('stdio modern after cancel:', se.split('\n').filter(l => l.startsWith('ABORTED')).join(';') || '(no ABORTED)', '| response for id 1?', so.includes('"id":1'));
// 4. stdio: legacy initialize on the same process after a modern request? (era pinning)
st.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) + '\n');
await new Promise(r => setTimeout(r, 300));
console.log('stdio: initialize after modern traffic ->', so.split('\n').filter(l => l.includes('"id":9')).join(''));
st.kill();
// 5. stdio: server/discover probe first, then initialize (dual-era client fallback)
const s2 = spawn(process.execPath, ['server.mjs', 'v2', 'stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
let o2 = ''; s2.stdout.on('data', d => o2 += d); await new Promise(r => setTimeout(r, 1500));
s2.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: ENV } }) + '\n');
await new Promise(r => setTimeout(r, 300));
s2.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) + '\n');
await new Promise(r => setTimeout(r, 300));
console.log('stdio: discover then initialize ->', o2.trim().split('\n').map(l => l.slice(0, 160)).join('\n   '));
s2.kill();
