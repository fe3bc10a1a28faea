// Memory over a soak (issue 23): does zodexd's RSS stay flat over thousands of calls? Each round
// makes CALLS sequential exec_command calls (`echo`), then starts a command that prints a line
// every 10 ms and polls it POLLS times (write_stdin, yield_time_ms 0), then kills it; then the
// server idles while its RSS is sampled every second for SETTLE seconds. The figure per round is
// the settled RSS (the mean of the last 10 samples), with its anonymous and file-backed parts
// (/proc/PID/smaps_rollup) so a creep can be told apart from the shared libraries and SQLite's
// file pages. The floor is the same server's RSS before the first round (one warm-up call).
// Local mode, the default: every call is recorded in the history, as for a user.
//   node bench/soak.mjs [--rounds 10] [--calls 1000] [--polls 1000] [--settle 65] [--zodexd PATH]
//     [--out soak] [--transport stdio|http] [-- zodexd flags...]   -> bench/results/<out>.json

import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { rawHttp, rawStdio, requireBuild, round, startHttpServer, writeResult, ZODEXD } from './lib.mjs';
import { makeScratch } from './compare/servers.mjs';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const extra = dash === -1 ? [] : argv.slice(dash + 1);
const flags = dash === -1 ? argv : argv.slice(0, dash);
const flag = (name, fallback) => {
  const at = flags.indexOf(`--${name}`);
  return at === -1 ? fallback : flags[at + 1];
};
const rounds = Number(flag('rounds', 10));
const calls = Number(flag('calls', 1000));
const polls = Number(flag('polls', 1000));
const settleS = Number(flag('settle', 65));
const zodexd = path.resolve(flag('zodexd', ZODEXD));
const out = flag('out', 'soak');
const transport = flag('transport', 'stdio');
if (zodexd === ZODEXD) requireBuild();

const MiB = (kib) => round(kib / 1024, 1);
function memory(pid) {
  const read = (file) => {
    try {
      return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
    } catch {
      return '';
    }
  };
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  const rollup = read('smaps_rollup');
  return { rss: field(read('status'), 'VmRSS'), anon: field(rollup, 'Anonymous'), file: field(rollup, 'Rss') - field(rollup, 'Anonymous') };
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const scratch = makeScratch();
const args = ['--state-dir', scratch.state, '--spill-dir', scratch.spill, ...extra];
const env = { HOME: scratch.home, ...(scratch.spawnHelper ? { ZODEX_SPAWN_HELPER: scratch.spawnHelper } : {}) };
let server;
let httpChild;
if (transport === 'http') {
  const started = await startHttpServer([zodexd, '--transport', 'http', '--listen', '127.0.0.1:0', ...args], env);
  httpChild = started.child;
  server = { ...(await rawHttp(started.url)), pid: httpChild.pid };
} else {
  server = await rawStdio(args, zodexd, 'legacy', env);
}

const call = async (name, args) => {
  const response = await server.request('tools/call', { name, arguments: args });
  const result = response?.result;
  if (!result || result.isError) throw new Error(`${name} failed: ${JSON.stringify(response).slice(0, 300)}`);
  return result.structuredContent;
};

const warm = await call('exec_command', { cmd: 'echo warm', workdir: scratch.work });
if (warm.status !== 'exited') throw new Error('warm-up call did not exit');
await sleep(2000);
const floor = memory(server.pid);
console.log(`floor: RSS ${MiB(floor.rss)} MiB (anonymous ${MiB(floor.anon)}, file ${MiB(floor.file)})`);

const results = [];
for (let r = 1; r <= rounds; r++) {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const result = await call('exec_command', { cmd: `echo soak ${i}`, workdir: scratch.work, yield_time_ms: 10_000 });
    if (result.status !== 'exited' || !result.output.includes(`soak ${i}`)) throw new Error(`call ${i}: ${JSON.stringify(result).slice(0, 200)}`);
  }
  const callsS = (performance.now() - started) / 1000;
  const chatty = await call('exec_command', { cmd: 'i=0; while :; do i=$((i+1)); echo "line $i"; sleep 0.01; done', workdir: scratch.work, yield_time_ms: 0 });
  let polled = 0;
  for (let i = 0; i < polls; i++) {
    const result = await call('write_stdin', { session_handle: chatty.session_handle, yield_time_ms: 0 });
    polled += result.output.length;
  }
  await call('write_stdin', { session_handle: chatty.session_handle, kill_process: true });
  const workS = (performance.now() - started) / 1000;
  const right = memory(server.pid);
  const samples = [];
  for (let s = 0; s < settleS; s++) {
    await sleep(1000);
    samples.push(memory(server.pid));
  }
  const last = samples.slice(-10);
  const mean = (key) => last.reduce((sum, m) => sum + m[key], 0) / last.length;
  const row = {
    round: r,
    callsSeconds: round(callsS, 1),
    workSeconds: round(workS, 1),
    polledChars: polled,
    rssAfterWorkMiB: MiB(right.rss),
    settledRssMiB: MiB(mean('rss')),
    settledAnonMiB: MiB(mean('anon')),
    settledFileMiB: MiB(mean('file')),
    samplesMiB: samples.map((m) => MiB(m.rss)),
  };
  results.push(row);
  console.log(
    `round ${r}: ${calls} calls in ${row.callsSeconds} s, ${polls} polls; RSS after work ${row.rssAfterWorkMiB} MiB, settled ${row.settledRssMiB} MiB (anonymous ${row.settledAnonMiB}, file ${row.settledFileMiB})`,
  );
}

const settled = results.map((row) => row.settledRssMiB);
const summary = {
  zodexd: path.relative(process.cwd(), zodexd) || zodexd,
  transport,
  flags: extra,
  rounds,
  callsPerRound: calls,
  pollsPerRound: polls,
  settleSeconds: settleS,
  floorMiB: { rss: MiB(floor.rss), anon: MiB(floor.anon), file: MiB(floor.file) },
  settledRssMiB: settled,
  growthFirstToLastMiB: round(settled[settled.length - 1] - settled[0], 1),
  growthSecondHalfMiB: round(settled[settled.length - 1] - settled[Math.floor(settled.length / 2)], 1),
  rounds_: results,
};
console.log(`settled RSS per round (MiB): ${settled.join(', ')}; first to last ${summary.growthFirstToLastMiB} MiB`);
console.log(`wrote ${writeResult(out, summary)}`);
server.close();
httpChild?.kill('SIGTERM');
await sleep(500);
fs.rmSync(scratch.root, { recursive: true, force: true });
