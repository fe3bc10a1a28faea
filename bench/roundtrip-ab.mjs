// Before/after of a change to zodexd's own work per call (issue 14): builds of zodexd side by side
// with mcp-server-commands, the same `true` round trip over stdio with the minimal client of
// bench/lib.mjs, in one loop whose order is shuffled every round (the first server after the peer
// was measured up to 8% slower when the order was fixed). List a build twice to see the noise.
// Usage: node bench/roundtrip-ab.mjs CALLS ENTRY[@NAME=value,...] ...
//   e.g. a copy of dist/ from before a change beside the current one:
//   node bench/roundtrip-ab.mjs 500 /tmp/before/dist/cli/zodexd.js dist/cli/zodexd.js
// (a copy of dist/ needs node_modules and build/ beside it: symlinks do). Prints p50s; writes nothing.

import os from 'node:os';
import path from 'node:path';
import { ensurePeers } from './compare/servers.mjs';
import { rawStdio, requireBuild, round, stats } from './lib.mjs';

requireBuild();
const [callsArg, ...entries] = process.argv.slice(2);
const calls = Number(callsArg);
if (!(calls > 0) || entries.length === 0) {
  console.error('usage: node bench/roundtrip-ab.mjs CALLS ENTRY[@NAME=value,...] ...');
  process.exit(2);
}
const peerStatus = ensurePeers()['mcp-server-commands'];
if (!peerStatus.ok) throw new Error(`mcp-server-commands: ${peerStatus.reason}`);

const exec = { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } };
const servers = [
  {
    name: `peer ${peerStatus.pkg} ${peerStatus.version}`,
    client: await rawStdio([], peerStatus.entry),
    params: { name: 'run_command', arguments: { command: 'true', workdir: '/' } },
  },
];
for (const entry of entries) {
  const [file, settings = ''] = entry.split('@');
  const env = Object.fromEntries(
    settings
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=')),
  );
  servers.push({ name: entry, client: await rawStdio([], path.resolve(file), 'legacy', env), params: exec });
}
const call = async (server) => {
  const reply = await server.client.request('tools/call', server.params);
  if (reply.error || reply.result?.isError) throw new Error(`${server.name}: ${JSON.stringify(reply).slice(0, 200)}`);
};
for (let i = 0; i < 20; i++) for (const server of servers) await call(server); // warm up

const samples = servers.map(() => []);
for (let i = 0; i < calls; i++) {
  const order = [...servers.keys()];
  for (let j = order.length - 1; j > 0; j--) {
    const k = Math.floor(Math.random() * (j + 1));
    [order[j], order[k]] = [order[k], order[j]];
  }
  for (const index of order) {
    const started = process.hrtime.bigint();
    await call(servers[index]);
    samples[index].push(Number(process.hrtime.bigint() - started) / 1e6);
  }
}
const p50 = samples.map((values) => stats(values).p50);
for (const [index, server] of servers.entries()) {
  console.log(
    `${server.name.padEnd(48)} p50 ${round(p50[index], 3).toFixed(3)} ms  /peer ${round(p50[index] / p50[0], 3).toFixed(3)}  /first build ${round(p50[index] / p50[Math.min(1, p50.length - 1)], 3).toFixed(3)}`,
  );
}
console.log(
  `calls ${calls} each, load average ${os
    .loadavg()
    .map((load) => round(load, 2))
    .join(' ')}`,
);
for (const server of servers) server.client.close();
