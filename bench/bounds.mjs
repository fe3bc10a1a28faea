// What confinement costs (issue 26), in one run, interleaved, with a shuffled order every round:
//   1. the round trip of an exec_command `true` over stdio (the minimal client of lib.mjs) for
//      zodexd with --write-mode direct --sandbox off (nothing confined: the floor), the governed
//      default (publish-pr), each sandbox mode, and network off;
//   2. the mechanisms side by side, each spawned from node and waited for, running /bin/true with
//      the same bounds: no confinement; zodex-spawn's own (user or mount namespace, masks, pins,
//      Landlock, seccomp: `--exec`); bubblewrap from Debian with the same masks; and
//      @anthropic-ai/sandbox-runtime's wrapped command (bubblewrap, a network namespace and its
//      socat proxies), when `npm install @anthropic-ai/sandbox-runtime` put it in
//      bench/srt/node_modules (never a dependency of zodex).
// Writes bench/results/bounds.json. Usage: node bench/bounds.mjs [CALLS] [SPAWNS]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, rawStdio, requireBuild, round, stats, writeResult } from './lib.mjs';

requireBuild();
const calls = Number(process.argv[2] ?? 300);
const spawns = Number(process.argv[3] ?? 200);
const HELPER = path.join(ROOT, 'build/Release/zodex-spawn');

function shuffled(length) {
  const order = [...Array(length).keys()];
  for (let j = order.length - 1; j > 0; j--) {
    const k = Math.floor(Math.random() * (j + 1));
    [order[j], order[k]] = [order[k], order[j]];
  }
  return order;
}

// A scratch home with the usual stores, so that masks and pins have something to cover.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-bench-bounds-'));
const home = path.join(scratch, 'home');
for (const dir of ['.ssh', '.config/gh', '.config/git', '.gnupg', 'work']) fs.mkdirSync(path.join(home, dir), { recursive: true });
for (const file of ['.git-credentials', '.netrc', '.config/gh/hosts.yml', '.config/git/credentials', '.ssh/id_ed25519'])
  fs.writeFileSync(path.join(home, file), 'secret\n');
const workdir = path.join(home, 'work');
const env = { HOME: home, XDG_STATE_HOME: path.join(scratch, 'state'), ZODEX_SPILL_DIR: path.join(scratch, 'spill') };

// ---- 1. round trips --------------------------------------------------------------------------
const configurations = [
  { name: 'direct, sandbox off (unconfined)', args: ['--write-mode', 'direct'] },
  { name: 'publish-pr (governed), sandbox off', args: [] },
  { name: 'publish-pr, sandbox read-only', args: ['--sandbox', 'read-only'] },
  { name: 'publish-pr, sandbox workspace-write', args: ['--sandbox', 'workspace-write'] },
  { name: 'publish-pr, workspace-write, network off', args: ['--sandbox', 'workspace-write', '--sandbox-network', 'off'] },
];
const servers = [];
for (const configuration of configurations) servers.push({ ...configuration, client: await rawStdio(configuration.args, undefined, 'legacy', env) });
const params = { name: 'exec_command', arguments: { cmd: 'true', workdir } };
const call = async (server) => {
  const reply = await server.client.request('tools/call', params);
  if (reply.error || reply.result?.isError || reply.result?.structuredContent?.exit_code !== 0)
    throw new Error(`${server.name}: ${JSON.stringify(reply).slice(0, 300)}`);
};
for (let i = 0; i < 20; i++) for (const server of servers) await call(server);
const roundTrips = servers.map(() => []);
for (let i = 0; i < calls; i++) {
  for (const index of shuffled(servers.length)) {
    const started = process.hrtime.bigint();
    await call(servers[index]);
    roundTrips[index].push(Number(process.hrtime.bigint() - started) / 1e6);
  }
}
for (const server of servers) server.client.close();

// ---- 2. the mechanisms -----------------------------------------------------------------------
const encode = (entries) => entries.map(([key, value]) => `${key}${Buffer.byteLength(value)}:${value}`).join('');
const stores = ['.git-credentials', '.netrc', '.ssh', '.config/gh', '.config/git/credentials', '.gnupg'].map((store) => path.join(home, store));
const policy = encode([['g', '1'], ['p', path.join(home, '.config')], ...stores.map((store) => ['m', store]), ['s', 'workspace-write']]);
const bwrapMasks = stores.flatMap((store) => (fs.statSync(store).isDirectory() ? ['--tmpfs', store] : ['--ro-bind', '/dev/null', store]));
const mechanisms = [
  { name: 'no confinement (/bin/true)', file: '/bin/true', args: [] },
  {
    name: 'zodex-spawn --exec (namespaces, masks, Landlock, seccomp; workspace-write)',
    file: HELPER,
    args: ['--exec', '/bin/true'],
    env: { ZODEX_CONFINE: policy },
  },
  {
    name: 'bubblewrap 0.8 (the same masks, read-only / but the workdir, new /dev and /proc)',
    file: 'bwrap',
    args: [
      '--ro-bind',
      '/',
      '/',
      ...bwrapMasks,
      '--bind',
      workdir,
      workdir,
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--unshare-pid',
      '--die-with-parent',
      '--',
      '/bin/true',
    ],
  },
];
const srtEntry = path.join(ROOT, 'bench/srt/node_modules/@anthropic-ai/sandbox-runtime/dist/index.js');
let srtNote = 'not installed: `npm ci --prefix bench/srt` (it needs ripgrep and socat)';
if (fs.existsSync(srtEntry)) {
  try {
    const { SandboxManager } = await import(srtEntry);
    await SandboxManager.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: stores, allowWrite: [workdir], denyWrite: [] },
    });
    const wrapped = await SandboxManager.wrapWithSandbox('/bin/true');
    mechanisms.push({ name: '@anthropic-ai/sandbox-runtime 0.0.83 (bubblewrap, network namespace, socat proxies)', file: '/bin/bash', args: ['-c', wrapped] });
    srtNote = 'wrapWithSandbox(/bin/true), initialized once; the command line it returns is what each command runs';
  } catch (error) {
    srtNote = `could not initialize: ${error.message.split('\n')[0]}`;
  }
}
const runOnce = (mechanism) =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(mechanism.file, mechanism.args, { cwd: workdir, env: { PATH: process.env.PATH, HOME: home, ...mechanism.env }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - started) / 1e6) : reject(new Error(`${mechanism.name} exited ${code}`))));
  });
for (let i = 0; i < 10; i++) for (const mechanism of mechanisms) await runOnce(mechanism);
const spawnTimes = mechanisms.map(() => []);
for (let i = 0; i < spawns; i++) for (const index of shuffled(mechanisms.length)) spawnTimes[index].push(await runOnce(mechanisms[index]));

// ---- report ----------------------------------------------------------------------------------
const floor = stats(roundTrips[0]).p50;
const roundTripRows = servers.map((server, index) => {
  const s = stats(roundTrips[index]);
  return {
    configuration: server.name,
    args: server.args,
    p50Ms: round(s.p50, 3),
    p95Ms: round(s.p95, 3),
    minMs: round(s.min, 3),
    ratioToUnconfined: round(s.p50 / floor, 3),
    plusMs: round(s.p50 - floor, 3),
  };
});
const spawnFloor = stats(spawnTimes[0]).p50;
const mechanismRows = mechanisms.map((mechanism, index) => {
  const s = stats(spawnTimes[index]);
  return { mechanism: mechanism.name, p50Ms: round(s.p50, 3), p95Ms: round(s.p95, 3), minMs: round(s.min, 3), plusMs: round(s.p50 - spawnFloor, 3) };
});
const file = writeResult('bounds', {
  command: `node bench/bounds.mjs ${calls} ${spawns}`,
  calls,
  spawns,
  roundTrips: roundTripRows,
  mechanisms: mechanismRows,
  sandboxRuntime: srtNote,
  loadAverageAfter: os.loadavg().map((load) => round(load, 2)),
});
for (const row of roundTripRows)
  console.log(
    `${row.configuration.padEnd(44)} p50 ${row.p50Ms.toFixed(3)} ms  p95 ${row.p95Ms.toFixed(3)}  x${row.ratioToUnconfined.toFixed(3)}  +${row.plusMs.toFixed(3)} ms`,
  );
for (const row of mechanismRows)
  console.log(`${row.mechanism.padEnd(90)} p50 ${row.p50Ms.toFixed(3)} ms  p95 ${row.p95Ms.toFixed(3)}  +${row.plusMs.toFixed(3)} ms`);
console.log(`written to ${file}`);
fs.rmSync(scratch, { recursive: true, force: true });
process.exit(0);
