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
// Usage: node bench/redaction.mjs [rounds] [BEFORE_ZODEXD]  (e.g. /tmp/before/dist/cli/zodexd.js)
// Figures to bench/results/redaction.json.

import { randomBytes } from 'node:crypto';
import { exec, requireBuild, round, stats, stdioZodex, writeResult } from './lib.mjs';

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

const servers = [await server('0 secrets', 0), await server('1 secret', 1), await server('20 secrets', 20)];
if (before) servers.unshift(await server('before redaction', 0, before));
const adversarial = await server('20 secrets sharing a 30-x start', 20, undefined, () => `${'x'.repeat(30)}${randomBytes(5).toString('hex')}`);

const samples = {};
async function run(entry, workload) {
  const started = process.hrtime.bigint();
  const result = await exec(entry.zodex.client, { cmd: WORKLOADS[workload] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 'exited' || result.exit_code !== 0) throw new Error(`${entry.name} ${workload}: ${result.summary}`);
  if (workload === 'hits' && entry.firstSecret && !result.output.includes('[REDACTED:BENCH_SECRET_01]')) throw new Error(`${entry.name}: the secret was not redacted`);
  if (workload === 'hits' && entry.firstSecret && result.output.includes(entry.firstSecret)) throw new Error(`${entry.name}: the secret is in the output`);
  ((samples[workload] ??= {})[entry.name] ??= []).push(MB / 1e6 / (ms / 1000));
}

for (let i = 0; i < rounds; i++) {
  const order = [...servers.slice(i % servers.length), ...servers.slice(0, i % servers.length)];
  for (const workload of ['long', 'short', 'hits']) for (const entry of order) await run(entry, workload);
  for (const entry of i % 2 === 0 ? [servers.at(-3), adversarial] : [adversarial, servers.at(-3)]) await run(entry, 'adversarial');
  process.stderr.write(`round ${i + 1}/${rounds}\n`);
}
for (const entry of [...servers, adversarial]) await entry.zodex.close();

const figures = {};
for (const [workload, byServer] of Object.entries(samples)) {
  const base = stats(byServer['0 secrets']).median;
  figures[workload] = {
    workload: WORKLOADS[workload],
    MBps: Object.fromEntries(Object.entries(byServer).map(([name, list]) => [name, { ...stats(list.map((v) => round(v, 1))), ratioTo0: round(stats(list).median / base) }])),
  };
}
const file = writeResult('redaction', { rounds, before: before ?? null, figures });
console.log(JSON.stringify(figures, null, 2));
console.log(`written to ${file}`);
