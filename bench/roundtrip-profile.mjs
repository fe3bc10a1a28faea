// Where a `true` round trip's time goes (issue 14), each step measured alone in this process and
// interleaved per call, so noise hits all alike; beside the same round trip over stdio (zodexd)
// and the peer's (mcp-server-commands), both with the minimal JSON-RPC client of bench/lib.mjs.
//   pipes  : child_process.spawn of the shell with `-c true`, pipes (the peer's path, no MCP)
//   launch : zodexd's launchers (standby pool) running `SHELL -c true` on a PTY to its end marker
//   direct : node-pty starting zodex-spawn with the command (no pool), to its end marker
//   engine : ExecEngine.start + collect: launch plus session, output buffer and report
//   mcp    : the whole exec_command over stdio (JSON, zod, tools, stdout write); zodexd in Local
//            mode (the default) runs the login shell (/bin/bash here) and, as mcp.dash, --shell /bin/sh with a
//            scratch HOME; the peer runs /bin/sh (child_process.exec)
// each step for bash and for dash (/bin/sh here, the shell the peer's exec uses).
// Usage: node bench/roundtrip-profile.mjs [calls]

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensurePeers } from './compare/servers.mjs';
import { ROOT, rawStdio, requireBuild, round, stats, writeResult } from './lib.mjs';

requireBuild();
const calls = Number(process.argv[2] ?? 300);
const HELPER = path.join(ROOT, 'build/Release/zodex-spawn');
const { openLaunchers, spawnPty } = await import(path.join(ROOT, 'dist/exec/launch/launcher.js'));
const { ExecEngine } = await import(path.join(ROOT, 'dist/exec/engine.js'));
const { engineOptions } = await import(path.join(ROOT, 'dist/app/options.js'));
const { configFor } = await import(path.join(ROOT, 'dist/app/config/parse.js'));
const { serverEnvironment } = await import(path.join(ROOT, 'dist/exec/environment.js'));
const { SpillStore } = await import(path.join(ROOT, 'dist/exec/output/spill.js'));
const peerStatus = ensurePeers()['mcp-server-commands'];
if (!peerStatus.ok) throw new Error(`mcp-server-commands: ${peerStatus.reason}`);

const shells = { bash: '/bin/bash', dash: '/bin/sh' };
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb', HOME: os.homedir() };
const launchers = openLaunchers({ spawnHelper: HELPER, cols: 80, rows: 24, helperEnv: {}, standby: true });
const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-profile-'));
const engines = Object.fromEntries(
  Object.entries(shells).map(([name, shell]) => [
    name,
    // zodexd's own engine options (app/options.ts), with this shell's server environment
    new ExecEngine(
      engineOptions(configFor(['--mode', 'sprite']), {
        spawnHelper: HELPER,
        shell: Promise.resolve(serverEnvironment(shell, { remove: [], set: {} })),
        spill: new SpillStore({ parentDir: spillDir, capBytes: 1 << 20, maxAgeMs: 3_600_000 }),
        log: () => {},
      }),
    ),
  ]),
);
const zodex = await rawStdio(); // Local mode (the default): the login shell, /bin/bash here
const scratchHome = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-profile-home-'));
const zodexDash = await rawStdio(['--shell', '/bin/sh'], undefined, 'legacy', { HOME: scratchHome, ZODEX_MODE: 'local' });
const peer = await rawStdio([], peerStatus.entry);

const ptyRun = (pty) =>
  new Promise((resolve) => {
    pty.onData(() => {});
    pty.onExit(() => {
      pty.dispose();
      resolve();
    });
  });
const steps = {};
for (const [name, shell] of Object.entries(shells)) {
  const spec = { file: shell, args: ['-c', 'true'], cwd: '/', env };
  steps[`pipes.${name}`] = () => new Promise((resolve) => spawn(shell, ['-c', 'true'], { stdio: 'pipe' }).on('close', resolve));
  steps[`launch.${name}`] = async () => ptyRun(await launchers.launch(spec));
  steps[`direct.${name}`] = () => ptyRun(spawnPty({ ...spec, spawnHelper: HELPER, cols: 80, rows: 24 }));
  steps[`engine.${name}`] = async () => {
    const session = await engines[name].start({ cmd: 'true', cwd: '/', timeoutMs: 60_000, owner: 'bench' });
    await engines[name].collect(session, 60_000);
  };
}
steps['mcp.bash'] = () => zodex.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } });
steps['mcp.dash'] = () => zodexDash.request('tools/call', { name: 'exec_command', arguments: { cmd: 'true', workdir: '/' } });
steps['mcp.peer'] = () => peer.request('tools/call', { name: 'run_command', arguments: { command: 'true', workdir: '/' } });

async function timed(fn) {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}
const samples = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
for (let i = 0; i < 20; i++) for (const fn of Object.values(steps)) await fn(); // warm up
for (let i = 0; i < calls; i++) for (const [name, fn] of Object.entries(steps)) samples[name].push(await timed(fn));
const p50 = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, round(stats(values).p50, 3)]));
const result = {
  calls,
  p50Ms: p50,
  figures: Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, stats(values)])),
  // What each layer adds, p50 against p50 (bash: zodexd's default shell here).
  breakdownMs: Object.fromEntries(
    Object.keys(shells).map((name) => [
      name,
      {
        shellOnPipes: p50[`pipes.${name}`],
        ptyAndReporterOverPipes: round(p50[`launch.${name}`] - p50[`pipes.${name}`], 3),
        sessionAndReportOverLaunch: round(p50[`engine.${name}`] - p50[`launch.${name}`], 3),
        mcpOverEngine: round(p50[`mcp.${name}`] - p50[`engine.${name}`], 3),
        directOverPool: round(p50[`direct.${name}`] - p50[`launch.${name}`], 3),
      },
    ]),
  ),
  zodexOverPeerP50: round(p50['mcp.bash'] / p50['mcp.peer']),
  zodexDashOverPeerP50: round(p50['mcp.dash'] / p50['mcp.peer']),
  peerMcpOverPipesDash: round(p50['mcp.peer'] - p50['pipes.dash'], 3),
};
launchers.close();
for (const engine of Object.values(engines)) await engine.shutdown();
for (const client of [zodex, zodexDash, peer]) client.close();
fs.rmSync(spillDir, { recursive: true, force: true });
fs.rmSync(scratchHome, { recursive: true, force: true });
const file = writeResult('roundtrip-profile', result);
console.log(
  JSON.stringify(
    { p50Ms: result.p50Ms, breakdownMs: result.breakdownMs, zodexOverPeerP50: result.zodexOverPeerP50, zodexDashOverPeerP50: result.zodexDashOverPeerP50 },
    null,
    2,
  ),
);
console.log(`written to ${file}`);
