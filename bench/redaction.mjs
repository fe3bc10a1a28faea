// What redacting secrets costs the output stream (issue 26): 50 MB through one exec_command on
// zodexd servers that know 0, 1 and 20 secret values (40 hex characters each, from --redact-env),
// and, given one, on a build from before redaction existed. Interleaved: each round runs every
// server once on each workload, the first server rotating from round to round.
// Workloads, 50 MB each (the rate is of the bytes the command wrote):
//   long        1000-byte lines of x, no secret in them (the common case)
//   short       `yes`: 2-byte lines, so the most reads and chunk ends per byte
//   hits        1000-byte lines, each holding the first secret once (replaced 50,000 times)
//   adversarial 1000-byte lines of x, on a server whose 20 secrets are 30 x's and 10 hex
//               characters: every read ends in what could be the start of a secret, which is
//               held back and joined to the next read
// Two figures per run: the wall-clock rate (MB/s of what the command wrote), which the machine's
// load moves a lot, and zodexd's own CPU time for the 50 MB (every thread, from
// /proc/PID/task/*/schedstat), which it moves far less; each compared with the 0-secret server of
// the same round (median of the per-round ratios).
// Beside it, the redactor alone (dist/exec/output/redact.js, in this process): the same 50 MB of each
// workload pushed through it in 4 KiB reads, as zodexd reads a terminal, min and median of the
// rounds: the cost itself, with the least noise a shared machine allows.
// Usage: node bench/redaction.mjs [rounds] [BEFORE_ZODEXD]  (e.g. /tmp/before/dist/cli/zodexd.js)
// Figures to bench/results/redaction.json.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exec, requireBuild, ROOT, round, stats, stdioZodex, writeResult } from './lib.mjs';

requireBuild();
const rounds = Number(process.argv[2] ?? 5);
const before = process.argv[3];
const MB = 50_000_000;
const X = (n) => `$(head -c ${n} /dev/zero | tr '\\0' x)`;
const WORKLOADS = {
  long: `yes "${X(999)}" | head -c ${MB}`,
  short: `yes | head -c ${MB}`,
  hits: `yes "${X(950)} $BENCH_SECRET_01" | head -c ${MB}`,
  adversarial: `yes "${X(999)}" | head -c ${MB}`,
};

const hex = () => randomBytes(20).toString('hex');
function secretEnv(count, make = hex) {
  const env = {};
  for (let i = 1; i <= count; i++) env[`BENCH_SECRET_${String(i).padStart(2, '0')}`] = make();
  return env;
}

async function server(name, secrets, script, make) {
  const env = secretEnv(secrets, make);
  const zodex = await stdioZodex(secrets > 0 ? ['--redact-env', 'BENCH_SECRET_*'] : [], secrets > 0 ? env : { BENCH_SECRET_01: hex() }, script);
  await exec(zodex.client, { cmd: 'true' }); // warm up: login environment captured
  return { name, zodex, firstSecret: env.BENCH_SECRET_01 };
}

// The redactor alone: ms to push 50 MB of a workload's bytes through it in 4 KiB reads.
const { StreamRedactor } = await import(path.join(ROOT, 'dist/exec/output/redact.js'));
const { SecretRegistry } = await import(path.join(ROOT, 'dist/secrets.js'));
function bytesOf(line) {
  const data = Buffer.alloc(MB);
  for (let at = 0; at < MB; at += line.length) line.copy(data, at);
  return data;
}
function alone(values, data) {
  const registry = new SecretRegistry();
  values.forEach((value, i) => registry.add(`S${i}`, value));
  const redactor = new StreamRedactor(registry);
  const started = process.hrtime.bigint();
  for (let at = 0; at < data.length; at += 4096) redactor.push(data.subarray(at, at + 4096));
  redactor.end();
  return Number(process.hrtime.bigint() - started) / 1e6;
}
const token = hex();
const hexValues = [token, ...Array.from({ length: 19 }, hex)];
const xValues = Array.from({ length: 20 }, () => `${'x'.repeat(30)}${randomBytes(5).toString('hex')}`);
const inputs = {
  long: bytesOf(Buffer.from(`${'x'.repeat(999)}\n`)),
  short: bytesOf(Buffer.from('y\n')),
  hits: bytesOf(Buffer.from(`${'x'.repeat(950)} ${token}\n`)),
};
const aloneMs = {};
for (let i = 0; i < rounds; i++) {
  for (const [workload, data] of Object.entries(inputs)) {
    for (const [name, values] of [
      ['0 secrets', []],
      ['1 secret', [token]],
      ['20 secrets', hexValues],
    ])
      ((aloneMs[workload] ??= {})[name] ??= []).push(alone(values, data));
  }
  ((aloneMs.adversarial ??= {})['20 secrets sharing a 30-x start'] ??= []).push(alone(xValues, inputs.long));
}
const redactorAlone = Object.fromEntries(
  Object.entries(aloneMs).map(([workload, byName]) => [
    workload,
    Object.fromEntries(Object.entries(byName).map(([name, list]) => [name, { msPer50MB: stats(list.map((v) => round(v, 1))) }])),
  ]),
);
console.log(JSON.stringify(redactorAlone));

const servers = [await server('0 secrets', 0), await server('1 secret', 1), await server('20 secrets', 20)];
if (before) servers.unshift(await server('before redaction', 0, before));
const adversarial = await server('20 secrets sharing a 30-x start', 20, undefined, () => `${'x'.repeat(30)}${randomBytes(5).toString('hex')}`);

// CPU time of every thread of `pid` so far, in ms.
function cpuMs(pid) {
  let ns = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

const samples = {}; // workload -> server -> [{ MBps, cpuMs, round }]
let currentRound = 0;
async function run(entry, workload) {
  const cpuBefore = cpuMs(entry.zodex.pid);
  const started = process.hrtime.bigint();
  const result = await exec(entry.zodex.client, { cmd: WORKLOADS[workload] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const cpu = cpuMs(entry.zodex.pid) - cpuBefore;
  if (result.status !== 'exited' || result.exit_code !== 0) throw new Error(`${entry.name} ${workload}: ${result.summary}`);
  if (workload === 'hits' && entry.firstSecret && !result.output.includes('[REDACTED:BENCH_SECRET_01]'))
    throw new Error(`${entry.name}: the secret was not redacted`);
  if (workload === 'hits' && entry.firstSecret && result.output.includes(entry.firstSecret)) throw new Error(`${entry.name}: the secret is in the output`);
  ((samples[workload] ??= {})[entry.name] ??= []).push({ MBps: MB / 1e6 / (ms / 1000), cpuMs: cpu, round: currentRound });
}

for (let i = 0; i < rounds; i++) {
  currentRound = i;
  const order = [...servers.slice(i % servers.length), ...servers.slice(0, i % servers.length)];
  for (const workload of ['long', 'short', 'hits']) for (const entry of order) await run(entry, workload);
  for (const entry of i % 2 === 0 ? [servers.at(-3), adversarial] : [adversarial, servers.at(-3)]) await run(entry, 'adversarial');
  process.stderr.write(`round ${i + 1}/${rounds}\n`);
}
for (const entry of [...servers, adversarial]) await entry.zodex.close();

// Median of the per-round ratios of `key` to the 0-secret server's run of the same round.
function ratio(list, base, key) {
  return round(stats(list.map((run) => run[key] / base.find((b) => b.round === run.round)[key])).median);
}
const figures = {};
for (const [workload, byServer] of Object.entries(samples)) {
  const base = byServer['0 secrets'];
  figures[workload] = {
    workload: WORKLOADS[workload],
    servers: Object.fromEntries(
      Object.entries(byServer).map(([name, list]) => [
        name,
        {
          MBps: stats(list.map((run) => round(run.MBps, 1))),
          cpuMsPer50MB: stats(list.map((run) => round(run.cpuMs))),
          rateRatioTo0: ratio(list, base, 'MBps'),
          cpuRatioTo0: ratio(list, base, 'cpuMs'),
        },
      ]),
    ),
  };
}
const file = writeResult('redaction', { rounds, before: before ?? null, redactorAlone, figures });
console.log(JSON.stringify(figures, null, 2));
console.log(`written to ${file}`);
