// Issue 15's choice, measured side by side in one run with equal raw clients (no SDK on the
// client side, so only server cost differs), interleaved round-robin:
//  - zodexd as built (SDK 1.32 for 2025-11-25, its own 2026-07-28 handling): tools/list and an
//    exec_command `true`, legacy and modern, over stdio and HTTP;
//  - the two SDK stacks themselves as minimal servers with one `echo` tool (bench/sdk2/server.mjs):
//    SDK v2 (@modelcontextprotocol/server 2.4.0 + node 2.1.2) in both eras, and SDK v1 1.32.2;
//  - the time from spawn to the first server/discover answer over stdio (what a client's probe
//    timeout must cover; the AI SDK waits 1 s), for zodexd and the v2 minimal server.
// Usage: node bench/modern-roundtrip.mjs [calls]   (installs bench/sdk2 with npm ci when missing)

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ZODEXD, rawHttp, rawStdio, requireBuild, round, stats, writeResult } from './lib.mjs';

requireBuild();
const SDK2 = path.join(ROOT, 'bench/sdk2');
if (!fs.existsSync(path.join(SDK2, 'node_modules/@modelcontextprotocol/server')))
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', SDK2], { stdio: 'inherit' });
const MINI = path.join(SDK2, 'server.mjs');
const calls = Number(process.argv[2] ?? 200);
const children = [];

// A server that prints its port: zodexd ("serving over http on URL") or the minimal one ("LISTEN port").
function startHttp(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: SDK2 });
  children.push(child);
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const zodex = /serving over http on (\S+)/.exec(text);
      const mini = /LISTEN (\d+)/.exec(text);
      if (zodex) resolve(zodex[1]);
      else if (mini) resolve(`http://127.0.0.1:${mini[1]}/mcp`);
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${text}`)));
  });
}

async function firstDiscoverMs(args) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], cwd: SDK2 });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } })}\n`);
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  child.kill('SIGKILL');
  return ms;
}

const exec = { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } };
const echo = { name: 'echo', arguments: { text: 'x' } };
const zodexArgs = [ZODEXD, '--mode', 'sprite'];
const zodexHttp = await startHttp([...zodexArgs, '--transport', 'http', '--listen', '127.0.0.1:0']);
const v2Http = await startHttp([MINI, 'v2', 'http', '0', 'sessionful']);
const v1Http = await startHttp([MINI, 'v1', 'http', '0']);
const clients = {
  'zodexd stdio 2025-11-25': [await rawStdio(['--mode', 'sprite']), exec],
  'zodexd stdio 2026-07-28': [await rawStdio(['--mode', 'sprite'], ZODEXD, 'modern'), exec],
  'zodexd http 2025-11-25': [await rawHttp(zodexHttp), exec],
  'zodexd http 2026-07-28': [await rawHttp(zodexHttp, 'modern'), exec],
  'SDK v2 minimal stdio 2026-07-28': [await rawStdio(['v2', 'stdio'], MINI, 'modern'), echo],
  'SDK v2 minimal stdio 2025-11-25': [await rawStdio(['v2', 'stdio'], MINI), echo],
  'SDK v1 minimal stdio 2025-11-25': [await rawStdio(['v1', 'stdio'], MINI), echo],
  'SDK v2 minimal http 2026-07-28': [await rawHttp(v2Http, 'modern'), echo],
  'SDK v2 minimal http 2025-11-25 (sessionful)': [await rawHttp(v2Http), echo],
  'SDK v1 minimal http 2025-11-25': [await rawHttp(v1Http), echo],
};

async function timed(fn) {
  const started = process.hrtime.bigint();
  const reply = await fn();
  if (!reply?.result || reply.result.isError) throw new Error(`a round trip failed: ${JSON.stringify(reply).slice(0, 300)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

for (const [client, call] of Object.values(clients)) {
  for (let i = 0; i < 20; i++) await client.request('tools/call', call); // warm up
}
const samples = {};
for (let i = 0; i < calls; i++) {
  for (const [name, [client, call]] of Object.entries(clients)) {
    (samples[`${name} tools/list`] ??= []).push(await timed(() => client.request('tools/list', {})));
    (samples[`${name} tools/call ${call.name}`] ??= []).push(await timed(() => client.request('tools/call', call)));
  }
}
const startup = { 'zodexd stdio': [], 'SDK v2 minimal stdio': [] };
for (let i = 0; i < 5; i++) {
  startup['zodexd stdio'].push(await firstDiscoverMs(zodexArgs));
  startup['SDK v2 minimal stdio'].push(await firstDiscoverMs([MINI, 'v2', 'stdio']));
}
for (const [client] of Object.values(clients)) client.close();
for (const child of children) child.kill('SIGTERM');

const summary = (values) => {
  const s = stats(values);
  return { n: s.n, p50: round(s.p50), p95: round(s.p95), min: round(s.min) };
};
const result = {
  calls,
  roundTripsMs: Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summary(values)])),
  spawnToFirstDiscoverMs: Object.fromEntries(Object.entries(startup).map(([name, values]) => [name, summary(values)])),
};
const file = writeResult('modern-roundtrip', result);
for (const [name, s] of [...Object.entries(result.roundTripsMs), ...Object.entries(result.spawnToFirstDiscoverMs)])
  console.log(`${name.padEnd(58)} p50 ${String(s.p50).padStart(8)} ms  p95 ${String(s.p95).padStart(8)} ms`);
console.log(`wrote ${file}`);
process.exit(0);
