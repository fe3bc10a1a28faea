// Cost as the work grows (issue 24), for sizing a node of sandboxes:
//   1. agents: N concurrent agents (each its own MCP 2025-11-25 session over HTTP, minimal clients)
//      each calling exec_command `true` in a loop, for N = 1, 10, 100, 250: p50/p99 latency,
//      failures, zodexd's peak RSS; beside the do-nothing HTTP MCP server (bench/bare-mcp.mjs)
//      driven by the same clients in the same run, the transport floor.
//   2. memory: a Sprite-mode zodexd idle (its RSS, and the PSS of its whole process tree: the
//      zygote and standby terminals too), then with 20 commands running: the growth per command.
//   3. start to ready: spawn -> GET /readyz answers 200 on the ops listener, beside spawn -> a
//      bare node HTTP server answering (the floor).
// Writes bench/results/scale.json and scale.svg. Run with nice on a shared machine; the load
// average at the start and end of each part is recorded.
// Usage: node bench/scale.mjs [--levels 1,10,100,250] [--calls 750] [--starts 10]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { renderChart } from './compare/svg.mjs';
import { BARE_MCP, RESULTS, ZODEXD, rawHttp, requireBuild, round, rssKiB, sampleRss, stats, writeResult } from './lib.mjs';

requireBuild();
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const LEVELS = option('levels', '1,10,100,250').split(',').map(Number);
const CALLS = Number(option('calls', '750')); // per level, split between its agents (at least 3 each)
const STARTS = Number(option('starts', '10'));
const RUNNING = 20; // commands held running for the memory part
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-scale-'));
const load = () => os.loadavg().map((value) => round(value, 2));

function startServer(argv, env = {}) {
  const child = spawn(process.execPath, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  const ready = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /serving over http on (\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${text}`)));
  });
  return {
    child,
    ready,
    stderr: () => text,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

const zodexdArgs = (extra = []) => [
  ZODEXD,
  '--transport',
  'http',
  '--listen',
  '127.0.0.1:0',
  '--mode',
  'sprite',
  '--state-dir',
  path.join(scratch, 'state'),
  '--spill-dir',
  path.join(scratch, 'spill'),
  '--max-conversations',
  '400',
  '--max-sessions',
  '400',
  ...extra,
];

// --- 1. N concurrent agents -------------------------------------------------------------------
async function agents(argv, n) {
  const server = startServer(argv);
  const url = await server.ready;
  const clients = [];
  for (let i = 0; i < n; i++) clients.push(await rawHttp(url));
  const perAgent = Math.max(3, Math.ceil(CALLS / n));
  // one untimed call each: code paths compiled, standby terminals in use
  await Promise.all(clients.map((client) => client.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } })));
  const rss = sampleRss(server.child.pid, 20);
  const latencies = [];
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let k = 0; k < perAgent; k++) {
        const t0 = performance.now();
        try {
          const reply = await client.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/', yield_time_ms: 30000 } });
          const result = reply?.result;
          if (!result || result.isError || result.structuredContent?.exit_code !== 0) failures++;
        } catch {
          failures++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const peakKiB = rss.stop();
  for (const client of clients) client.close();
  await server.stop();
  const s = stats(latencies);
  const sorted = [...latencies].sort((a, b) => a - b);
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))];
  return {
    agents: n,
    calls: latencies.length,
    failures,
    p50Ms: round(s.p50),
    p99Ms: round(p99),
    minMs: round(s.min),
    maxMs: round(s.max),
    callsPerSecond: round((latencies.length / wallMs) * 1000, 1),
    peakRssMiB: round(peakKiB / 1024, 1),
    latencies,
  };
}

// --- 2. idle memory and growth per running command ----------------------------------------------
function tree(pid) {
  const children = new Map();
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone
    }
  }
  const all = [];
  const walk = (p) => {
    all.push(p);
    for (const child of children.get(p) ?? []) walk(child);
  };
  walk(pid);
  return all;
}
const pssKiB = (pid) => {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};
// Private pages (USS): what one more sandbox adds on a node where the node binary and libraries
// are already in the page cache (the same image layer is the same file for every pod).
const ussKiB = (pid) => {
  try {
    const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    return ['Private_Clean', 'Private_Dirty'].reduce((sum, key) => sum + Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0), 0);
  } catch {
    return 0;
  }
};
const treePss = (pid) => tree(pid).reduce((sum, p) => sum + pssKiB(p), 0);
const treeUss = (pid) => tree(pid).reduce((sum, p) => sum + ussKiB(p), 0);
const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));

async function memory() {
  const server = startServer(zodexdArgs());
  const url = await server.ready;
  const client = await rawHttp(url);
  await client.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } });
  await settle();
  const snapshot = () => ({
    zodexdRssMiB: round(rssKiB(server.child.pid) / 1024, 1),
    treePssMiB: round(treePss(server.child.pid) / 1024, 1),
    treeUssMiB: round(treeUss(server.child.pid) / 1024, 1),
    processes: tree(server.child.pid).length,
  });
  const idle = snapshot();
  const handles = [];
  for (let i = 0; i < RUNNING; i++) {
    const reply = await client.request('tools/call', { name: 'exec_command', arguments: { cmd: 'sleep 300', workdir: '/', yield_time_ms: 50 } });
    handles.push(reply.result.structuredContent.session_handle);
  }
  await settle();
  const busy = snapshot();
  for (const handle of handles) await client.request('tools/call', { name: 'write_stdin', arguments: { session_handle: handle, kill_process: true } });
  client.close();
  await server.stop();
  return {
    idle,
    running: RUNNING,
    withRunning: busy,
    perCommand: {
      zodexdRssKiB: round(((busy.zodexdRssMiB - idle.zodexdRssMiB) * 1024) / RUNNING, 0),
      treePssKiB: round(((busy.treePssMiB - idle.treePssMiB) * 1024) / RUNNING, 0),
      treeUssKiB: round(((busy.treeUssMiB - idle.treeUssMiB) * 1024) / RUNNING, 0),
    },
  };
}

// --- 3. start to ready --------------------------------------------------------------------------
const get = (url) =>
  new Promise((resolve) => {
    http.get(url, (res) => (res.resume(), resolve(res.statusCode))).on('error', () => resolve(0));
  });
// Polls `url` every 5 ms until it answers (200, or any status with `anyStatus`).
async function untilOk(url, started, anyStatus = false) {
  for (;;) {
    const status = await get(url);
    if (status === 200 || (anyStatus && status > 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}
async function startToReady() {
  const zodexd = [];
  const floor = [];
  for (let i = 0; i < STARTS; i++) {
    const port = 20000 + Math.floor(Math.random() * 20000);
    let started = performance.now();
    const server = startServer(zodexdArgs(['--ops-listen', `127.0.0.1:${port}`]));
    zodexd.push(await untilOk(`http://127.0.0.1:${port}/readyz`, started));
    await server.stop();
    started = performance.now();
    const bare = startServer([BARE_MCP, 'http']);
    const url = await bare.ready;
    floor.push(await untilOk(url, started, true));
    await bare.stop();
  }
  return { runs: STARTS, zodexd: stats(zodexd), floor: stats(floor) };
}

// --- run --------------------------------------------------------------------------------------
const loadAtStart = load();
const levels = [];
for (const n of LEVELS) {
  const levelLoad = load();
  const zodex = await agents(zodexdArgs(), n);
  const bare = await agents([BARE_MCP, 'http'], n);
  levels.push({ agents: n, load: levelLoad, zodex, bare, p50Ratio: round(zodex.p50Ms / bare.p50Ms, 2), p99Ratio: round(zodex.p99Ms / bare.p99Ms, 2) });
  console.log(
    `${n} agents: zodex p50 ${zodex.p50Ms} ms p99 ${zodex.p99Ms} ms, ${zodex.failures} failures, peak RSS ${zodex.peakRssMiB} MiB; bare p50 ${bare.p50Ms} ms p99 ${bare.p99Ms} ms (load ${levelLoad.join(' ')})`,
  );
}
const mem = await memory();
console.log(
  `memory: idle zodexd RSS ${mem.idle.zodexdRssMiB} MiB, tree PSS ${mem.idle.treePssMiB} MiB, USS ${mem.idle.treeUssMiB} MiB; per running command +${mem.perCommand.zodexdRssKiB} KiB RSS, +${mem.perCommand.treePssKiB} KiB tree PSS, +${mem.perCommand.treeUssKiB} KiB tree USS`,
);
const starts = await startToReady();
console.log(`start to ready: zodexd p50 ${round(starts.zodexd.p50)} ms (floor ${round(starts.floor.p50)} ms)`);
const loadAtEnd = load();
fs.rmSync(scratch, { recursive: true, force: true });

const row = (target, label, samples, extra = {}) => {
  const s = stats(samples);
  return { target, label, kind: 'server', status: 'ok', stats: { n: s.n, median: round(s.median), min: round(s.min), max: round(s.max) }, ...extra };
};
const result = {
  id: 'scale',
  title: 'Cost as the work grows: one zodexd (Sprite mode, HTTP)',
  subtitle: `exec_command \`true\` from N concurrent agents (own MCP sessions, minimal clients), ${CALLS} calls per level; the do-nothing HTTP MCP server as the floor, same clients, same run. Load average ${loadAtStart[0]} at the start, ${loadAtEnd[0]} at the end (2 cores).`,
  settings: {
    levels: LEVELS,
    callsPerLevel: CALLS,
    runningCommands: RUNNING,
    starts: STARTS,
    zodexdArgs: zodexdArgs()
      .slice(1)
      .map((arg) => (arg.startsWith(scratch) ? '<scratch>' : arg)),
  },
  loadAverage: { start: loadAtStart, end: loadAtEnd },
  levels: levels.map(({ zodex, bare, ...rest }) => ({ ...rest, zodex: { ...zodex, latencies: undefined }, bare: { ...bare, latencies: undefined } })),
  memory: mem,
  startToReady: {
    runs: starts.runs,
    zodexd: { p50: round(starts.zodexd.p50), p95: round(starts.zodexd.p95), min: round(starts.zodexd.min), max: round(starts.zodexd.max) },
    floor: { p50: round(starts.floor.p50), p95: round(starts.floor.p95), min: round(starts.floor.min), max: round(starts.floor.max) },
  },
  panels: [
    {
      metric: 'latencyMs',
      title: 'A `true` call: median latency (bar), min to max (whisker), by concurrent agents',
      unit: 'ms',
      better: 'lower',
      rows: levels.flatMap((level) => [
        row('zodex-http', `zodex, ${level.agents} agent${level.agents === 1 ? '' : 's'} (p99 ${level.zodex.p99Ms} ms)`, level.zodex.latencies),
        row('floor', `do-nothing server, ${level.agents} (p99 ${level.bare.p99Ms} ms)`, level.bare.latencies),
      ]),
    },
    {
      metric: 'peakRssMiB',
      title: "zodexd's peak RSS while the agents call",
      unit: 'MiB',
      better: 'lower',
      rows: levels.map((level) => row('zodex-http', `zodex, ${level.agents} agent${level.agents === 1 ? '' : 's'}`, [level.zodex.peakRssMiB])),
    },
    {
      metric: 'startMs',
      title: 'Spawn to ready (GET /readyz 200), floor: spawn to a bare node HTTP server answering',
      unit: 'ms',
      better: 'lower',
      rows: [
        row('zodex-http', 'zodexd --ops-listen', [starts.zodexd.min, starts.zodexd.p50, starts.zodexd.max]),
        row('floor', 'bare node HTTP server', [starts.floor.min, starts.floor.p50, starts.floor.max]),
      ],
    },
  ],
  notes: [
    `Memory, Sprite mode, idle: zodexd ${mem.idle.zodexdRssMiB} MiB RSS; its whole tree (zodexd, zodex-spawn zygote, standby terminals: ${mem.idle.processes} processes) ${mem.idle.treePssMiB} MiB PSS, ${mem.idle.treeUssMiB} MiB private (USS). Each running command (here \`sleep 300\`) adds ${mem.perCommand.zodexdRssKiB} KiB to zodexd's RSS and ${mem.perCommand.treePssKiB} KiB PSS, ${mem.perCommand.treeUssKiB} KiB USS to the tree (its zodex-spawn, bash and the command).`,
  ],
};
writeResult('scale', result);
fs.writeFileSync(path.join(RESULTS, 'scale.svg'), renderChart(result));
console.log(`wrote ${path.join(RESULTS, 'scale.json')} and scale.svg`);
