// exec_command `true` round trips (issues 2 and 5), interleaved with two floors measured in the
// same run: node-pty spawning the same shell with `-c true`, no MCP; and the transport floor,
// bench/bare-mcp.mjs answering the same call after 3 ms over stdio and over HTTP, which shows
// what HTTP costs whatever the server does (node's HTTP and the client's).
//   goal (issue 2): stdio p50 <= 1.5 x floor p50;  goal (issue 5): http p50 <= stdio p50 + 1 ms.
// Each is measured with the SDK's clients and with equal minimal clients (bench/lib.mjs).
// The peer in the same run (issue 14): mcp-server-commands (pinned in bench/compare/servers.mjs,
// installed into bench/.peers), whose run_command runs `true` through child_process.exec: pipes,
// no PTY, no sessions. Measured with the SDK client and with the same minimal client as zodexd.
//   goal (issue 14): zodex stdio p50 <= 1.0 x mcp-server-commands stdio p50, the PTY kept.
// The same-shell figure separates the shell from zodex: a second zodexd in Local mode with
// --shell /bin/sh (dash here, the shell the peer's child_process.exec runs) and a scratch HOME (so
// the login capture reads no rc file of the user), in the same loop, as its own ratio to the peer.
// Also 16 sessions running concurrently over HTTP (16 conversations, `sleep 1` each).
// Usage: node bench/roundtrip.mjs [calls]

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensurePeers } from './compare/servers.mjs';
import { BARE_MCP, barePty, exec, httpZodex, rawHttp, rawStdio, requireBuild, round, stats, stdioZodex, writeResult } from './lib.mjs';

requireBuild();
const peerStatus = ensurePeers()['mcp-server-commands'];
if (!peerStatus.ok) throw new Error(`mcp-server-commands is needed for the side-by-side figure: ${peerStatus.reason}`);
const calls = Number(process.argv[2] ?? 300);
const shell = process.env.SHELL || '/bin/bash';
const stdio = await stdioZodex();
const http = await httpZodex();
const raw = { stdio: await rawStdio(), http: await rawHttp(http.url) };
const bare = { stdio: await stdioZodex(['stdio'], {}, BARE_MCP), http: await httpZodex(['http'], {}, [BARE_MCP]) };
const bareRaw = { stdio: await rawStdio(['stdio'], BARE_MCP), http: await rawHttp(bare.http.url) };
const peer = await stdioZodex([], {}, peerStatus.entry);
const PEER_SHELL = '/bin/sh';
const scratchHome = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-bench-home-'));
const sameShellEnv = { HOME: scratchHome, ZODEX_MODE: 'local' };
const sameShell = await stdioZodex(['--shell', PEER_SHELL], sameShellEnv);
const sameShellRaw = await rawStdio(['--shell', PEER_SHELL], undefined, 'legacy', sameShellEnv);
const peerRaw = await rawStdio([], peerStatus.entry);
const call = (client) => client.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } });
const peerArguments = { name: 'run_command', arguments: { command: 'true', workdir: '/' } };
const peerCall = async () => {
  const result = await peer.client.callTool(peerArguments, undefined, { timeout: 600_000 });
  if (result.isError) throw new Error(`mcp-server-commands failed: ${JSON.stringify(result).slice(0, 200)}`);
};
const peerRawCall = () => peerRaw.request('tools/call', peerArguments);
for (const server of [stdio, http, bare.stdio, bare.http, sameShell]) for (let i = 0; i < 20; i++) await exec(server.client, { cmd: 'true' }); // warm up
for (const client of [...Object.values(raw), ...Object.values(bareRaw), sameShellRaw]) for (let i = 0; i < 20; i++) await call(client);
for (let i = 0; i < 20; i++) await peerCall(), await peerRawCall();

async function timed(fn) {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const samples = {
  floor: [],
  stdio: [],
  http: [],
  rawStdio: [],
  rawHttp: [],
  bareStdio: [],
  bareHttp: [],
  bareRawStdio: [],
  bareRawHttp: [],
  peerStdio: [],
  peerRawStdio: [],
  sameShellStdio: [],
  sameShellRawStdio: [],
};
for (let i = 0; i < calls; i++) {
  samples.peerStdio.push(await timed(peerCall));
  samples.peerRawStdio.push(await timed(peerRawCall));
  samples.floor.push(await timed(() => barePty('true', shell)));
  samples.stdio.push(await timed(() => exec(stdio.client, { cmd: 'true' })));
  samples.http.push(await timed(() => exec(http.client, { cmd: 'true' })));
  samples.rawStdio.push(await timed(() => call(raw.stdio)));
  samples.rawHttp.push(await timed(() => call(raw.http)));
  samples.bareStdio.push(await timed(() => exec(bare.stdio.client, { cmd: 'true' })));
  samples.bareHttp.push(await timed(() => exec(bare.http.client, { cmd: 'true' })));
  samples.bareRawStdio.push(await timed(() => call(bareRaw.stdio)));
  samples.bareRawHttp.push(await timed(() => call(bareRaw.http)));
  samples.sameShellStdio.push(await timed(() => exec(sameShell.client, { cmd: 'true' })));
  samples.sameShellRawStdio.push(await timed(() => call(sameShellRaw)));
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
for (const client of [...Object.values(raw), ...Object.values(bareRaw), peerRaw, sameShellRaw]) client.close();
await peer.close();
await sameShell.close();
for (const server of [stdio, http, bare.stdio, bare.http]) await server.close();
fs.rmSync(scratchHome, { recursive: true, force: true });

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
  // The transport floor: the same difference between servers that only answer (bench/bare-mcp.mjs).
  bareStdioMs: figures.bareStdio,
  bareHttpMs: figures.bareHttp,
  bareRawStdioMs: figures.bareRawStdio,
  bareRawHttpMs: figures.bareRawHttp,
  bareHttpMinusStdioP50Ms: round(figures.bareHttp.p50 - figures.bareStdio.p50),
  bareRawHttpMinusRawStdioP50Ms: round(figures.bareRawHttp.p50 - figures.bareRawStdio.p50),
  // What zodex adds over HTTP beyond the floor's own HTTP cost.
  zodexHttpCostOverFloorP50Ms: round(figures.http.p50 - figures.stdio.p50 - (figures.bareHttp.p50 - figures.bareStdio.p50)),
  zodexRawHttpCostOverFloorP50Ms: round(figures.rawHttp.p50 - figures.rawStdio.p50 - (figures.bareRawHttp.p50 - figures.bareRawStdio.p50)),
  // The side-by-side peer: mcp-server-commands over stdio, pipes and no PTY.
  peer: { pkg: peerStatus.pkg, version: peerStatus.version, tool: 'run_command { command: "true", workdir: "/" }' },
  peerStdioMs: figures.peerStdio,
  peerRawStdioMs: figures.peerRawStdio,
  stdioOverPeerP50: round(figures.stdio.p50 / figures.peerStdio.p50),
  rawStdioOverPeerRawP50: round(figures.rawStdio.p50 / figures.peerRawStdio.p50),
  // The same shell as the peer: zodexd (Local mode, --shell /bin/sh, a scratch HOME) against it.
  sameShell: { mode: 'local', shell: PEER_SHELL, shellIs: fs.realpathSync(PEER_SHELL), home: 'a scratch folder (no rc files)' },
  sameShellStdioMs: figures.sameShellStdio,
  sameShellRawStdioMs: figures.sameShellRawStdio,
  sameShellStdioOverPeerP50: round(figures.sameShellStdio.p50 / figures.peerStdio.p50),
  sameShellRawStdioOverPeerRawP50: round(figures.sameShellRawStdio.p50 / figures.peerRawStdio.p50),
  goals: {
    stdioOverFloorP50: '<= 1.5',
    httpMinusStdioP50Ms: '<= 1',
    stdioOverPeerP50: '<= 1.0 (issue 14)',
    sameShellStdioOverPeerP50: '<= 1.0 (issue 14, the shell set aside)',
  },
  sixteenConcurrentSessions: { command: 'sleep 1', wallMs: round(concurrent), idealMs: 1000 },
};
const file = writeResult('roundtrip', result);
console.log(JSON.stringify(result, null, 2));
console.log(`written to ${file}`);
