// Shared pieces of the benchmarks: statistics, machine facts, MCP clients on zodexd, a bare
// node-pty floor, RSS sampling, and writing figures to bench/results/.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const require = createRequire(import.meta.url);
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ZODEXD = path.join(ROOT, 'dist/cli/zodexd.js');
export const RESULTS = path.join(ROOT, 'bench/results');
export const BARE_MCP = path.join(ROOT, 'bench/bare-mcp.mjs'); // the transport floor

export function requireBuild() {
  if (!fs.existsSync(ZODEXD)) {
    console.error('bench: dist/ is missing; run `npm run build` first');
    process.exit(1);
  }
}

export function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, median: at(0.5), p50: at(0.5), p95: at(0.95), min: sorted[0], max: sorted[sorted.length - 1] };
}

export const round = (value, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

export function machine() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    loadAverage: os.loadavg().map((load) => round(load, 2)),
  };
}

export function writeResult(name, data) {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ machine: machine(), ...data }, null, 2) + '\n');
  return file;
}

// A zodexd over stdio with an SDK client. `pid` is the server's pid (for RSS). `script` runs
// another server instead (bench/bare-mcp.mjs).
export async function stdioZodex(args = [], env = {}, script = ZODEXD) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [script, ...args], env: { ...process.env, ...env }, stderr: 'ignore' });
  const client = new Client({ name: 'zodex-bench', version: '1' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

// A server started as `node ...serverArgs` that serves HTTP: resolves once it logged its URL.
export async function startHttpServer(serverArgs, env = {}) {
  const child = spawn(process.execPath, serverArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /serving over http on (\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`zodexd exited ${code}: ${text}`)));
  });
  return { child, url };
}

// A zodexd over HTTP on an ephemeral loopback port, with an SDK client. `serverArgs` runs
// another server instead (e.g. [BARE_MCP, 'http']).
export async function httpZodex(args = [], env = {}, serverArgs = [ZODEXD, '--transport', 'http', '--listen', '127.0.0.1:0']) {
  const { child, url } = await startHttpServer([...serverArgs, ...args], env);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'zodex-bench', version: '1' });
  await client.connect(transport);
  return {
    client,
    pid: child.pid,
    url,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export async function exec(client, args, timeout = 600_000) {
  const result = await client.callTool({ name: 'exec_command', arguments: { workdir: '/', yield_time_ms: 300_000, ...args } }, undefined, { timeout });
  return result.structuredContent;
}

// The floor: node-pty spawning the shell with `-c CMD`, no MCP, counting bytes until exit.
const pty = require('node-pty');
export function barePty(cmd, shell = process.env.SHELL || '/bin/bash') {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    let bytes = 0;
    const child = pty.spawn(shell, ['-c', cmd], { cols: 200, rows: 50, cwd: '/', env: process.env, encoding: null });
    child.onData((data) => {
      bytes += data.length;
    });
    child.onExit(() => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, bytes }));
  });
}

export function rssKiB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

// Samples a process's RSS every `everyMs` until stopped; returns the peak in KiB.
export function sampleRss(pid, everyMs = 50) {
  let peak = rssKiB(pid);
  const timer = setInterval(() => {
    const now = rssKiB(pid);
    if (now > peak) peak = now;
  }, everyMs);
  return { stop: () => (clearInterval(timer), peak) };
}

export function gitVersion() {
  try {
    return execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'git not found';
  }
}

// Minimal JSON-RPC clients, one per transport, doing the same work: send a request, wait for
// the response with the same id. They measure what the server and the transport cost, without
// the SDK client's own (unequal) overhead per transport.
// era 'modern': MCP 2026-07-28, no initialize, the _meta envelope on every request.
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
const withEnvelope = (era, params = {}) => (era === 'modern' ? { ...params, _meta: { ...params._meta, ...ENVELOPE } } : params);

export async function rawStdio(args = [], script = ZODEXD, era = 'legacy', env = {}) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, ...env } });
  const waiting = new Map();
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      id += 1;
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: withEnvelope(era, params) })}\n`);
    });
  if (era === 'modern') return { request, pid: child.pid, close: () => child.stdin.end() };
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { request, pid: child.pid, close: () => child.stdin.end() };
}

export async function rawHttp(url, era = 'legacy') {
  const http = await import('node:http');
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let session;
  let id = 0;
  const post = (body) =>
    new Promise((resolve, reject) => {
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': era === 'modern' ? '2026-07-28' : '2025-11-25',
      };
      if (era === 'modern') headers['mcp-method'] = body.method;
      if (era === 'modern' && body.method === 'tools/call') headers['mcp-name'] = body.params.name;
      if (session) headers['mcp-session-id'] = session;
      const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers }, (res) => {
        session ??= res.headers['mcp-session-id'];
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          const data = text
            .split('\n')
            .filter((line) => line.startsWith('data: {'))
            .pop();
          resolve(data ? JSON.parse(data.slice(6)) : text ? JSON.parse(text) : undefined);
        });
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  const request = (method, params) => post({ jsonrpc: '2.0', id: ++id, method, params: withEnvelope(era, params) });
  if (era === 'modern') return { request, close: () => agent.destroy() };
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { request, close: () => agent.destroy() };
}
