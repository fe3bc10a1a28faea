// Spawn -> first answer of zodexd over stdio (issue 15: the AI SDK's MCP client gives a stdio
// server 1 s to answer its server/discover probe). Interleaved per round with two floors from the
// same run: `node -e 0` (spawn -> exit) and a minimal node stdio JSON-RPC echo (spawn -> answer).
// Usage: node bench/startup.mjs [--runs 20]; figures to bench/results/startup.json.
// With --secrets BEFORE_ZODEXD (a build from before, e.g. /tmp/before/dist/cli/zodexd.js): the
// cost of what zodexd does with a secret in its environment (issue 26: erased from it, the process
// made non-dumpable): Local mode with ZODEX_AUTH_TOKEN set, this build beside BEFORE_ZODEXD,
// instead of the participants above; figures to bench/results/startup-secrets.json.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZODEXD, requireBuild, round, writeResult } from './lib.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 20) || 20;
const ECHO =
  "process.stdin.once('data',(d)=>{const m=JSON.parse(String(d).split('\\n')[0]);process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{}})+'\\n')})";
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'zodex-bench', version: '1' },
};
const DISCOVER = { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'zodex-bench', version: '1' } },
};

// ms from spawn to the first stdout line (or to exit when `untilExit`), checked to be an answer to id 0.
function time(args, message, { untilExit = false, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    let out = '';
    let answered;
    child.on('error', reject);
    child.on('exit', () =>
      untilExit ? resolve(elapsed()) : answered === undefined ? reject(new Error(`${args.join(' ')} exited without answering: ${out}`)) : resolve(answered),
    );
    if (untilExit) return void child.stdin.end();
    child.stdin.write(`${JSON.stringify(message)}\n`);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (answered !== undefined || !out.includes('\n')) return;
      answered = elapsed();
      const reply = JSON.parse(out.split('\n')[0]);
      if (reply.id !== 0 || !reply.result) return reject(new Error(`not an answer: ${out.slice(0, 300)}`));
      child.stdin.end();
    });
  });
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(quantile(sorted, 0.5), 1),
    p90: round(quantile(sorted, 0.9), 1),
    min: round(sorted[0], 1),
    max: round(sorted.at(-1), 1),
  };
}

requireBuild();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-startup-'));
const env = { ...process.env, HOME: home };
const state = ['--state-dir', path.join(home, 'state'), '--spill-dir', path.join(home, 'spill')];
const before = process.argv.includes('--secrets') ? process.argv[process.argv.indexOf('--secrets') + 1] : undefined;
const withToken = { ...env, ZODEX_AUTH_TOKEN: 'startup-bench-token-0123456789abcdef' };
const secretParticipants = before && {
  'node stdio JSON-RPC echo': () => time(['-e', ECHO], DISCOVER),
  'zodexd, ZODEX_AUTH_TOKEN set: server/discover': () => time([ZODEXD, ...state], DISCOVER, { env: withToken }),
  'zodexd, ZODEX_AUTH_TOKEN set: initialize': () => time([ZODEXD, ...state], INITIALIZE, { env: withToken }),
  'before, ZODEX_AUTH_TOKEN set: server/discover': () => time([before, ...state], DISCOVER, { env: withToken }),
  'before, ZODEX_AUTH_TOKEN set: initialize': () => time([before, ...state], INITIALIZE, { env: withToken }),
};
const participants = secretParticipants || {
  'node -e 0 (spawn -> exit)': () => time(['-e', '0'], undefined, { untilExit: true }),
  'node stdio JSON-RPC echo': () => time(['-e', ECHO], DISCOVER),
  'zodexd --mode sprite: server/discover': () => time([ZODEXD, '--mode', 'sprite', ...state], DISCOVER, { env }),
  'zodexd --mode sprite: initialize': () => time([ZODEXD, '--mode', 'sprite', ...state], INITIALIZE, { env }),
  'zodexd (local mode): server/discover': () => time([ZODEXD, ...state], DISCOVER, { env }),
  'zodexd (local mode): initialize': () => time([ZODEXD, ...state], INITIALIZE, { env }),
};
const names = Object.keys(participants);
const samples = Object.fromEntries(names.map((name) => [name, []]));
const load = [os.loadavg()[0]];
for (let round_ = 0; round_ < runs; round_++) {
  // The participant that goes first rotates, so the machine's noise hits all of them alike.
  for (let i = 0; i < names.length; i++) {
    const name = names[(round_ + i) % names.length];
    samples[name].push(await participants[name]());
  }
  load.push(os.loadavg()[0]);
}
fs.rmSync(home, { recursive: true, force: true });
const figures = Object.fromEntries(names.map((name) => [name, summary(samples[name])]));
const file = writeResult(before ? 'startup-secrets' : 'startup', {
  ...(before ? { before } : {}),
  method: `spawn of \`node <script>\` -> first stdout line answering id 0 (ms), ${runs} rounds, participants interleaved with a rotating first; loadavg(1 min) sampled per round`,
  loadAverage1m: { min: round(Math.min(...load)), max: round(Math.max(...load)) },
  figures,
  samples: Object.fromEntries(names.map((name) => [name, samples[name].map((ms) => round(ms, 1))])),
});
for (const name of names)
  console.log(`${name.padEnd(40)} p50 ${figures[name].p50} ms  p90 ${figures[name].p90} ms  (min ${figures[name].min}, max ${figures[name].max})`);
console.log(`load average (1 min) during the run: ${round(Math.min(...load))}..${round(Math.max(...load))}; ${file}`);
