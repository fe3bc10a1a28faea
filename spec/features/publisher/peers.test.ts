// Who the publisher serves (issue 12): a client of its own uid is refused (all but `status`) unless the operator
// passed --allow-same-user-token-readable; a client of another uid (here `nobody`, through
// setpriv, on a --socket-group socket) is served; `--user NAME` drops a root daemon to NAME.

import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepos, startDaemon, type DaemonHandle, type Repos } from './helpers.js';

const run = promisify(execFile);
const NOBODY = 65534; // nobody:nogroup on Debian
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PUBLISHER = ['--import', path.join(ROOT, 'spec/features/publisher/fixtures/register-ts.mjs'), path.join(ROOT, 'src/cli/zodex.ts'), 'publisher'];

let repos: Repos;
let open: DaemonHandle[] = [];
let shared: string;

beforeEach(() => {
  repos = makeRepos();
  shared = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-peers-'));
  fs.chmodSync(shared, 0o711); // others may traverse, not list
});
afterEach(async () => {
  for (const handle of open.splice(0)) await handle.daemon.close();
  fs.rmSync(repos.root, { recursive: true, force: true });
  fs.rmSync(shared, { recursive: true, force: true });
});

const STATUS = JSON.stringify({ version: 1, id: 'p1', op: 'status' });
// Any request but status: the peer check decides before anything else is looked at.
const PUSH = JSON.stringify({ version: 1, id: 'p2', op: 'push' });

// One request (status by default) from this process (the daemon's uid).
function status(socketPath: string, line = STATUS): Promise<{ ok: boolean; error?: { code: string; message: string } }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = net.connect(socketPath, () => socket.write(`${line}\n`));
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('end', () => resolve(JSON.parse(data)));
    socket.on('error', reject);
  });
}

// The same request from uid/gid nobody (asynchronously: the daemon may live in this process).
async function statusAsNobody(socketPath: string, line = STATUS): Promise<{ ok: boolean; error?: { code: string } }> {
  const script = `const s=require('net').connect(process.argv[1],()=>s.write(${JSON.stringify(`${line}\n`)}));let d='';s.on('data',c=>d+=c);s.on('end',()=>process.stdout.write(d));s.on('error',e=>{process.stdout.write(JSON.stringify({ok:false,error:{code:e.code}}))})`;
  const { stdout } = await run('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script, socketPath], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  return JSON.parse(stdout);
}

const root = process.getuid?.() === 0;

// `zodex publisher ARGS` in a process of its own, once `ready(log)` holds (it throws when the
// daemon exits or takes 20 s first).
async function publisher(args: string[], env: Record<string, string>, ready: (log: string) => boolean) {
  const daemon = spawn(process.execPath, [...PUBLISHER, ...args], { env: { ...repos.env, HOME: repos.home, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  daemon.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise((resolve) => daemon.on('exit', resolve));
  const stop = async () => {
    daemon.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 20_000;
  while (!ready(log)) {
    if (Date.now() > deadline || daemon.exitCode !== null) {
      await stop();
      throw new Error(`the daemon did not get ready:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { pid: daemon.pid!, log: () => log, stop };
}

describe('peer credentials', () => {
  it('refuses a client of its own uid, saying why and how to fix it, and logs it; status (no secret in it) is answered', async () => {
    const handle = await startDaemon({ repos, mode: 'read-only', apiBase: 'http://127.0.0.1:9', peers: { allowSameUser: false } });
    open.push(handle);
    expect(await status(handle.socketPath)).toMatchObject({ ok: true, result: { mode: 'read-only' } });
    const answer = await status(handle.socketPath, PUSH);
    expect(answer.ok).toBe(false);
    expect(answer.error?.code).toBe('PEER_REFUSED');
    expect(answer.error?.message).toContain(`runs as the publisher's own user (uid ${process.getuid?.()})`);
    expect(answer.error?.message).toContain('--allow-same-user-token-readable');
    expect(handle.logLines.some((line) => line.startsWith('connection refused: PEER_REFUSED') || line.includes('connection refused:'))).toBe(true);
    expect(handle.logLines[0]).toContain('clients of our own user are refused');
  });

  it('serves a client of its own uid with allowSameUser, and says so in its first log line', async () => {
    const handle = await startDaemon({ repos, mode: 'read-only', apiBase: 'http://127.0.0.1:9', peers: { allowSameUser: true } });
    open.push(handle);
    expect((await status(handle.socketPath)).ok).toBe(true);
    expect(handle.logLines[0]).toContain('WARNING: clients of our own user are served and can read the token');
  });

  it.runIf(root)('serves a client of another uid on a --socket-group socket (0660, folder 0710)', async () => {
    const handle = await startDaemon({
      repos,
      mode: 'read-only',
      apiBase: 'http://127.0.0.1:9',
      peers: { allowSameUser: false },
      socketGroup: NOBODY,
      folder: path.join(shared, 'run'),
    });
    open.push(handle);
    expect(fs.statSync(handle.socketPath).mode & 0o777).toBe(0o660);
    expect(fs.statSync(handle.socketPath).gid).toBe(NOBODY);
    expect(fs.statSync(path.dirname(handle.socketPath)).mode & 0o777).toBe(0o710);
    expect(await statusAsNobody(handle.socketPath)).toMatchObject({ ok: true });
    expect((await status(handle.socketPath, PUSH)).error?.code).toBe('PEER_REFUSED'); // root, the daemon's own uid
  });

  it.runIf(root)('without --socket-group another user cannot even reach the socket', async () => {
    const handle = await startDaemon({
      repos,
      mode: 'read-only',
      apiBase: 'http://127.0.0.1:9',
      peers: { allowSameUser: false },
      folder: path.join(shared, 'run'),
    });
    open.push(handle);
    expect(await statusAsNobody(handle.socketPath)).toMatchObject({ ok: false, error: { code: 'EACCES' } });
  });
});

describe.runIf(root)('zodex publisher --user', () => {
  it('reads the token as root, then runs as the named user, which owns the socket and serves root', async () => {
    const token = path.join(repos.root, 'token');
    fs.writeFileSync(token, 'ghp_TESTtoken0123456789abcdefSECRET\n', { mode: 0o600 });
    const state = path.join(shared, 'state');
    fs.mkdirSync(state, { mode: 0o700 });
    fs.chownSync(state, NOBODY, NOBODY);
    const socketPath = path.join(shared, 'run', 'publisher.sock');
    // The native addon sits where nobody cannot enter, as a checkout under /root (0700) does: it
    // must be loaded before the drop.
    const hidden = path.join(repos.root, 'hidden');
    fs.mkdirSync(hidden, { mode: 0o700 });
    const addon = path.join(hidden, 'zodex_native.node');
    fs.copyFileSync(path.join(ROOT, 'build/Release/zodex_native.node'), addon);
    const daemon = await publisher(
      ['--write-mode', 'read-only', '--token-file', token, '--user', 'nobody', '--socket', socketPath, '--state-dir', state],
      { ZODEX_NATIVE_ADDON: addon },
      (log) => log.includes('running as nobody'),
    );
    try {
      const ids = fs.readFileSync(`/proc/${daemon.pid}/status`, 'utf8');
      expect(ids).toMatch(new RegExp(`^Uid:\\s+${NOBODY}\\s+${NOBODY}\\s+${NOBODY}\\s+${NOBODY}$`, 'm'));
      expect(ids).toMatch(new RegExp(`^Gid:\\s+${NOBODY}\\s+${NOBODY}\\s+${NOBODY}\\s+${NOBODY}$`, 'm'));
      expect(ids).toMatch(new RegExp(`^Groups:\\s+${NOBODY}\\s*$`, 'm'));
      expect(fs.statSync(socketPath).uid).toBe(NOBODY);
      // The token file is root's (0600): the daemon can no longer read it.
      expect(() => execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'cat', token], { stdio: 'pipe' })).toThrow();
      // root is now another user: served.
      expect(await status(socketPath)).toMatchObject({ ok: true });
      // and nobody, the daemon's own user, is refused (all but status).
      expect(await statusAsNobody(socketPath, PUSH)).toMatchObject({ ok: false, error: { code: 'PEER_REFUSED' } });
      expect(daemon.log()).not.toContain('unusable'); // the history works as nobody (SQLite's driver was loaded before the drop)
    } finally {
      await daemon.stop();
    }
    expect(fs.existsSync(socketPath)).toBe(false); // removed by the dropped daemon, its owner
  }, 40_000);

  it('refuses to start, naming the folder, when the named user cannot use --state-dir', async () => {
    const token = path.join(repos.root, 'token');
    fs.writeFileSync(token, 'ghp_TESTtoken0123456789abcdefSECRET\n', { mode: 0o600 });
    const state = path.join(repos.root, 'roots-state'); // root's, 0700: nobody cannot enter it
    fs.mkdirSync(state, { mode: 0o700 });
    const socketPath = path.join(shared, 'run', 'publisher.sock');
    const daemon = spawn(
      process.execPath,
      [...PUBLISHER, '--write-mode', 'read-only', '--token-file', token, '--user', 'nobody', '--socket', socketPath, '--state-dir', state],
      {
        env: { ...repos.env, HOME: repos.home },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let log = '';
    daemon.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const stop = setTimeout(() => daemon.kill('SIGKILL'), 15_000); // a daemon that started is a failure
    const code = await new Promise((resolve) => daemon.on('exit', resolve));
    clearTimeout(stop);
    expect(code).toBe(1);
    expect(log).toContain(`BAD_CONFIG: --state-dir ${state} cannot be used by nobody (EACCES)`);
    expect(log).not.toContain('running as nobody');
    expect(fs.existsSync(socketPath)).toBe(false);
  }, 40_000);

  it('refuses --user without --socket and --state-dir', async () => {
    const { parsePublisherArgs } = await import('../../../src/cli/commands/publisher.js');
    expect(() => parsePublisherArgs(['--write-mode', 'read-only', '--user', 'nobody'], {})).toThrow(/--user needs --socket PATH and --state-dir DIR/);
    expect(() => parsePublisherArgs(['--write-mode', 'read-only', '--user', 'no-such-user-here', '--socket', '/tmp/x/s', '--state-dir', '/tmp/x'], {})).toThrow(
      /is not a user of this machine/,
    );
  });
});

describe('zodex publisher with the token in its environment', () => {
  it('keeps it out of /proc/PID/environ once read', async () => {
    const TOKEN = 'ghp_ENVIRONtoken0123456789abcdefSECRET';
    const socketPath = path.join(shared, 'env-run', 'publisher.sock');
    const daemon = await publisher(
      ['--write-mode', 'read-only', '--socket', socketPath, '--state-dir', path.join(shared, 'env-state')],
      { ZODEX_PUBLISHER_TOKEN: TOKEN },
      () => fs.existsSync(socketPath),
    );
    try {
      const environ = fs.readFileSync(`/proc/${daemon.pid}/environ`, 'latin1');
      expect(environ).toContain('HOME=');
      expect(environ).not.toContain(TOKEN);
      expect(environ).not.toContain('ZODEX_PUBLISHER_TOKEN');
    } finally {
      await daemon.stop();
    }
  }, 40_000);
});
