// exec_command `true` round trips (issues 2 and 5), interleaved with the floor measured in the
// same run: node-pty spawning the same shell with `-c true`, no MCP.
//   goal (issue 2): stdio p50 <= 1.5 x floor p50;  goal (issue 5): http p50 <= stdio p50 + 1 ms.
// Also 16 sessions running concurrently over HTTP (16 conversations, `sleep 1` each).
// Usage: node bench/roundtrip.mjs [calls]

import { barePty, exec, httpZodex, rawHttp, rawStdio, requireBuild, round, stats, stdioZodex, writeResult } from './lib.mjs';

requireBuild();
const calls = Number(process.argv[2] ?? 300);
const shell = process.env.SHELL || '/bin/bash';
const stdio = await stdioZodex();
const http = await httpZodex();
const raw = { stdio: await rawStdio(), http: await rawHttp(http.url) };
const call = (client) => client.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } });
for (const server of [stdio, http]) for (let i = 0; i < 20; i++) await exec(server.client, { cmd: 'true' }); // warm up
for (const client of Object.values(raw)) for (let i = 0; i < 20; i++) await call(client);

async function timed(fn) {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const samples = { floor: [], stdio: [], http: [], rawStdio: [], rawHttp: [] };
for (let i = 0; i < calls; i++) {
  samples.floor.push(await timed(() => barePty('true', shell)));
  samples.stdio.push(await timed(() => exec(stdio.client, { cmd: 'true' })));
  samples.http.push(await timed(() => exec(http.client, { cmd: 'true' })));
  samples.rawStdio.push(await timed(() => call(raw.stdio)));
  samples.rawHttp.push(await timed(() => call(raw.http)));
}
const figures = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, stats(values)]));

// 16 conversations at once, each running a 1 s command.
const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const clients = await Promise.all(
  Array.from({ length: 16 }, async () => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    return client;
  }),
);
const concurrent = await timed(() => Promise.all(clients.map((client) => exec(client, { cmd: 'sleep 1' }))));
await Promise.all(clients.map((client) => client.close()));
raw.stdio.close();
raw.http.close();
await stdio.close();
await http.close();

const result = {
  shell,
  calls,
  floorMs: figures.floor,
  stdioMs: figures.stdio,
  httpMs: figures.http,
  rawStdioMs: figures.rawStdio,
  rawHttpMs: figures.rawHttp,
  clients: 'stdio/http: the SDK Client; rawStdio/rawHttp: minimal JSON-RPC clients (bench/lib.mjs), the same work on both transports',
  stdioOverFloorP50: round(figures.stdio.p50 / figures.floor.p50),
  httpMinusStdioP50Ms: round(figures.http.p50 - figures.stdio.p50),
  rawStdioOverFloorP50: round(figures.rawStdio.p50 / figures.floor.p50),
  rawHttpMinusRawStdioP50Ms: round(figures.rawHttp.p50 - figures.rawStdio.p50),
  goals: { stdioOverFloorP50: '<= 1.5', httpMinusStdioP50Ms: '<= 1' },
  sixteenConcurrentSessions: { command: 'sleep 1', wallMs: round(concurrent), idealMs: 1000 },
};
const file = writeResult('roundtrip', result);
console.log(JSON.stringify(result, null, 2));
console.log(`written to ${file}`);
