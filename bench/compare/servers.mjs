// The servers under comparison: zodexd over stdio and over HTTP, and the peers installed from
// npm at pinned versions into bench/.peers (never project dependencies). Each is launched as
// `node <its own entry .js>` so the pid we sample is the server itself, not an npx wrapper.
// Flow: ensurePeers() once per run -> makeScratch() -> TARGETS[i].start(scratch) per workload.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT, ZODEXD } from '../lib.mjs';
import { describeError, now, NotRun, withTimeout } from './harness.mjs';

export const PEERS_DIR = path.join(ROOT, 'bench/.peers');
const START_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 10_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;

// Pinned peers: the latest releases on npm when this harness was written.
export const PEERS = {
  'desktop-commander': { pkg: '@wonderwhy-er/desktop-commander', version: '0.2.52', entry: 'dist/index.js' },
  'mcp-server-commands': { pkg: 'mcp-server-commands', version: '0.5.0', entry: 'build/index.js' },
};

const installedVersion = (pkg) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(PEERS_DIR, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};

function npmInstall(specs) {
  // --ignore-scripts: Desktop Commander's postinstall reports the install to its telemetry and
  // downloads ripgrep from GitHub; neither is needed to serve the tools measured here.
  const args = ['install', '--prefix', PEERS_DIR, '--ignore-scripts', '--no-audit', '--no-fund', '--save-exact', ...specs];
  const result = spawnSync('npm', args, { encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  if (result.status === 0) return undefined;
  const text = `${result.stderr ?? ''}${result.stdout ?? ''}`
    .trim()
    .split('\n')
    .filter((l) => /ERR|error/i.test(l))
    .slice(-2)
    .join(' ');
  return `npm install ${specs.join(' ')} failed (${result.error ? describeError(result.error) : `exit ${result.status}`}): ${text.slice(0, 200)}`;
}

// Installs the pinned peers on first run (skipped when already at the pinned versions).
// Returns, per peer, { ok, version, entry } or { ok: false, reason }.
export function ensurePeers(log = console.log) {
  fs.mkdirSync(PEERS_DIR, { recursive: true });
  const entryOf = (peer) => path.join(PEERS_DIR, 'node_modules', peer.pkg, peer.entry);
  const missing = Object.values(PEERS).filter((peer) => installedVersion(peer.pkg) !== peer.version || !fs.existsSync(entryOf(peer)));
  if (missing.length > 0) {
    log(`bench: installing peers into bench/.peers: ${missing.map((p) => `${p.pkg}@${p.version}`).join(', ')}`);
    const failure = npmInstall(missing.map((p) => `${p.pkg}@${p.version}`));
    // One failed together: try each alone, so one peer's failure does not cost the other.
    if (failure && missing.length > 1) for (const peer of missing) npmInstall([`${peer.pkg}@${peer.version}`]);
  }
  const status = {};
  for (const [id, peer] of Object.entries(PEERS)) {
    const version = installedVersion(peer.pkg);
    const entry = entryOf(peer);
    if (version === peer.version && fs.existsSync(entry)) status[id] = { ok: true, pkg: peer.pkg, version, entry };
    else if (version === peer.version)
      status[id] = { ok: false, pkg: peer.pkg, version, reason: `installed, but its entry ${path.relative(PEERS_DIR, entry)} is missing` };
    else
      status[id] = {
        ok: false,
        pkg: peer.pkg,
        version: peer.version,
        reason: `npm install of ${peer.pkg}@${peer.version} failed${version ? ` (found ${version})` : ''}`,
      };
  }
  return status;
}

// A private scratch tree: HOME for every server (Desktop Commander writes its config, tool log
// and history under $HOME), zodexd's state and spill folders, and the commands' working folder.
export function makeScratch() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-bench-'));
  const scratch = {
    root,
    home: path.join(root, 'home'),
    work: path.join(root, 'work'),
    state: path.join(root, 'zodex-state'),
    spill: path.join(root, 'zodex-spill'),
  };
  for (const dir of [scratch.home, scratch.work, scratch.state, scratch.spill]) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // zodexd runs commands through its native helper. A copy taken now keeps a rebuild of build/
  // during the run (other work in the same tree) from failing commands midway.
  const helper = path.join(ROOT, 'build/Release/zodex-spawn');
  if (fs.existsSync(helper)) {
    scratch.spawnHelper = path.join(root, 'zodex-spawn');
    fs.copyFileSync(helper, scratch.spawnHelper);
    fs.chmodSync(scratch.spawnHelper, 0o755);
  }
  return scratch;
}

function serverEnv(scratch) {
  return {
    ...process.env,
    HOME: scratch.home,
    SHELL: process.env.SHELL || '/bin/bash',
    // Desktop Commander: its documented telemetry kill switch, and its feature-flag fetch pointed
    // at a closed loopback port (no traffic leaves the machine).
    DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1',
    DC_FLAG_URL: 'http://127.0.0.1:9/flags.json',
    ...(scratch.spawnHelper ? { ZODEX_SPAWN_HELPER: scratch.spawnHelper } : {}),
  };
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function ensureGone(pid) {
  for (let i = 0; i < 20 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

// A server spoken to over stdio by an SDK client; `pid` is the server process.
async function startStdio(label, args, scratch) {
  const started = now();
  const transport = new StdioClientTransport({ command: process.execPath, args, env: serverEnv(scratch), cwd: scratch.work, stderr: 'pipe' });
  let stderrTail = '';
  transport.stderr?.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-1000);
  });
  const client = new Client({ name: 'zodex-bench', version: '1' });
  const tail = () => (stderrTail.trim() ? `; stderr: ${stderrTail.trim().split('\n').slice(-2).join(' ').slice(0, 200)}` : '');
  try {
    await withTimeout(client.connect(transport), START_TIMEOUT_MS, () => `${label} did not start within ${START_TIMEOUT_MS / 1000} s${tail()}`);
  } catch (error) {
    const pid = transport.pid;
    await client.close().catch(() => {});
    if (pid) await ensureGone(pid);
    throw error instanceof NotRun ? error : new NotRun(`${label} failed to start: ${describeError(error)}${tail()}`);
  }
  const pid = transport.pid;
  return {
    client,
    pid,
    startupMs: now() - started,
    conversation: undefined, // stdio: one conversation per process
    close: async () => {
      await withTimeout(client.close(), CLOSE_TIMEOUT_MS, 'close timed out').catch(() => {});
      await ensureGone(pid);
    },
  };
}

// zodexd over HTTP on an ephemeral loopback port; `conversation()` opens another MCP session.
async function startZodexHttp(scratch) {
  const started = now();
  const child = spawn(process.execPath, [ZODEXD, ...zodexArgs(scratch), '--transport', 'http', '--listen', '127.0.0.1:0'], {
    env: serverEnv(scratch),
    cwd: scratch.work,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  const url = await withTimeout(
    new Promise((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        text = (text + chunk).slice(-4000);
        const match = /serving over http on (\S+)/.exec(text);
        if (match) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new NotRun(`zodexd (http) exited ${code} at start: ${text.trim().slice(-200)}`)));
    }),
    START_TIMEOUT_MS,
    `zodexd (http) did not listen within ${START_TIMEOUT_MS / 1000} s`,
  ).catch((error) => {
    child.kill('SIGKILL');
    throw error;
  });
  const open = [];
  const conversation = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(url));
    const client = new Client({ name: 'zodex-bench', version: '1' });
    await client.connect(transport);
    const handle = {
      client,
      close: async () => {
        await transport.terminateSession().catch(() => {});
        await client.close().catch(() => {});
      },
    };
    open.push(handle);
    return handle;
  };
  const first = await conversation();
  return {
    client: first.client,
    pid: child.pid,
    url,
    startupMs: now() - started,
    conversation,
    close: async () => {
      await Promise.all(open.map((c) => c.close()));
      child.kill('SIGTERM');
      await ensureGone(child.pid);
    },
  };
}

// zodexd's state (history database) and spill files go to the scratch tree, not the user's.
const zodexArgs = (scratch) => ['--state-dir', scratch.state, '--spill-dir', scratch.spill];

// The targets, in the order of the charts. `peer` names the entry of ensurePeers() they need.
export const TARGETS = [
  { id: 'zodex-stdio', label: 'zodex (stdio)', adapter: 'zodex', start: (scratch) => startStdio('zodexd', [ZODEXD, ...zodexArgs(scratch)], scratch) },
  { id: 'zodex-http', label: 'zodex (HTTP)', adapter: 'zodex', start: (scratch) => startZodexHttp(scratch) },
  { id: 'desktop-commander', label: 'Desktop Commander', adapter: 'desktop-commander', peer: 'desktop-commander' },
  { id: 'mcp-server-commands', label: 'mcp-server-commands', adapter: 'mcp-server-commands', peer: 'mcp-server-commands' },
];

// Binds each peer target to its installed entry, or to the reason it cannot run.
export function bindTargets(peers) {
  return TARGETS.map((target) => {
    if (!target.peer) return { ...target, version: 'this checkout' };
    const peer = peers[target.peer];
    if (!peer?.ok) return { ...target, version: peer?.version, unavailable: peer?.reason ?? 'not installed' };
    return { ...target, version: `${peer.pkg}@${peer.version}`, start: (scratch) => startStdio(target.label, [peer.entry], scratch) };
  });
}

// Desktop Commander keeps `telemetryEnabled` in $HOME/.claude-server-commander/config.json, made
// on its first start: turn it off there too (besides the environment switch).
export function disableDesktopCommanderTelemetry(scratch) {
  const file = path.join(scratch.home, '.claude-server-commander', 'config.json');
  if (!fs.existsSync(file)) return false;
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  config.telemetryEnabled = false;
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return true;
}
