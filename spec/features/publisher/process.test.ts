// `zodex publisher` and `zodex-agent` as real processes (run from source through a tiny
// TypeScript loader): start-up checks on the token file and the socket folder, the socket's
// permissions, a whole publication, the token kept out of git children and logs, SIGTERM.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStoreReader } from '../../../src/features/store/index.js';
import { filesContaining, gitWrapper, makeRepos, remoteBranch, startFakeGitHub, tempDir, TOKEN, type FakeGitHub, type Repos } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const REGISTER = path.join(ROOT, 'spec/features/publisher/fixtures/register-ts.mjs');
const ZODEX = path.join(ROOT, 'src/cli/zodex.ts');
const AGENT = path.join(ROOT, 'src/cli/zodex-agent.ts');

let repos: Repos;
let github: FakeGitHub;
let children: ChildProcess[] = [];

beforeEach(async () => {
  repos = makeRepos();
  github = await startFakeGitHub();
});

afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children = [];
  await github.close();
  fs.rmSync(repos.root, { recursive: true, force: true });
});

interface Spawned {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv, cwd = repos.work): Spawned {
  const child = spawn(process.execPath, ['--import', REGISTER, script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function writeConfig(): string {
  const file = path.join(repos.root, 'publisher.json');
  fs.writeFileSync(file, JSON.stringify({ allowedRemotes: [{ url: repos.remote, repo: 'acme/widgets' }], protectedBranches: ['main', 'release/*'] }));
  return file;
}

function daemonEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...repos.env, HOME: repos.home, ...extra };
}

describe('zodex publisher, the process', () => {
  it('publishes for zodex-agent end to end, keeps the token out of its git children and its log, and stops on SIGTERM', async () => {
    const socketDir = path.join(repos.root, 'run');
    const socket = path.join(socketDir, 'publisher.sock');
    const stateDir = path.join(repos.root, 'state');
    const daemonSide = tempDir('zodex-pub-daemon-side-');
    gitWrapper(daemonSide, path.join(daemonSide, 'gitlog'));
    const daemon = run(
      ZODEX,
      [
        'publisher',
        '--write-mode',
        'publish-pr',
        '--config',
        writeConfig(),
        '--socket',
        socket,
        '--api-base',
        github.apiBase,
        '--state-dir',
        stateDir,
        '--allow-same-user-token-readable',
      ],
      daemonEnv({ ZODEX_PUBLISHER_TOKEN: TOKEN, PATH: `${daemonSide}:${process.env.PATH}` }),
    );
    await waitFor(() => daemon.stderr().includes('listening on'), 'the publisher to listen');
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    expect(fs.statSync(socketDir).mode & 0o777).toBe(0o700);

    const agentEnv = { ...repos.env, ZODEX_PUBLISHER_SOCKET: socket, ZODEX_AGENT_ID: 'qz9k' };
    const status = run(AGENT, ['github', 'status'], agentEnv);
    expect(await status.exit).toBe(0);
    expect(status.stdout()).toMatch(/^write mode: publish-pr\n/);

    const publish = run(AGENT, ['github', 'publish-pr', '--base', 'main'], agentEnv);
    expect(await publish.exit).toBe(0);
    expect(publish.stdout()).toBe('https://github.example/acme/widgets/pull/7\n');
    expect(remoteBranch(repos, 'feature')).toBe(repos.head);
    expect(github.requests.find((request) => request.method === 'POST')?.headers.authorization).toBe(`Bearer ${TOKEN}`);

    const usage = run(AGENT, ['github', 'publish-pr', '--to', 'x'], agentEnv);
    expect(await usage.exit).toBe(2);

    // git children of the daemon never saw the token variable (the daemon dropped it at start).
    const envDumps = fs.readdirSync(path.join(daemonSide, 'gitlog')).filter((name) => name.startsWith('env-'));
    expect(envDumps.length).toBeGreaterThan(5);
    for (const name of envDumps) expect(fs.readFileSync(path.join(daemonSide, 'gitlog', name), 'utf8')).not.toContain(TOKEN);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exit).toBe(0);
    expect(fs.existsSync(socket)).toBe(false);
    const log = daemon.stderr();
    expect(log).toMatch(/op=publish-pr agent=qz9k repo=acme\/widgets branch=feature .*outcome=ok/);
    expect(log).toContain('SIGTERM: stopping');
    for (const text of [log, daemon.stdout(), publish.stdout(), publish.stderr(), status.stdout(), JSON.stringify(agentEnv)]) expect(text).not.toContain(TOKEN);

    // Recorded in the history store, without the token.
    const store = openStoreReader(stateDir);
    const rows = store.publications();
    store.close();
    expect(rows).toMatchObject([
      {
        agentId: 'qz9k',
        repository: 'acme/widgets',
        branch: 'feature',
        commit: repos.head,
        outcome: 'published',
        mode: 'publish-pr',
        prUrl: 'https://github.example/acme/widgets/pull/7',
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    for (const needle of [TOKEN, Buffer.from(`x-access-token:${TOKEN}`).toString('base64')]) expect(filesContaining(stateDir, needle)).toEqual([]);
    fs.rmSync(daemonSide, { recursive: true, force: true });
  });

  it('refuses a token file others can read, naming the chmod', async () => {
    const tokenFile = path.join(repos.root, 'token');
    fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o644 });
    fs.chmodSync(tokenFile, 0o644);
    const daemon = run(
      ZODEX,
      ['publisher', '--write-mode', 'publish-pr', '--token-file', tokenFile, '--config', writeConfig(), '--socket', path.join(repos.root, 'run', 'p.sock')],
      daemonEnv(),
    );
    expect(await daemon.exit).toBe(2);
    expect(daemon.stderr()).toContain(`UNSAFE_TOKEN_FILE: --token-file ${tokenFile} has mode 644, readable by others; run \`chmod 600 ${tokenFile}\``);
    expect(daemon.stderr()).not.toContain(TOKEN);
  });

  it('refuses to start in a socket folder others can enter', async () => {
    const folder = path.join(repos.root, 'open');
    fs.mkdirSync(folder, { mode: 0o755 });
    fs.chmodSync(folder, 0o755);
    const daemon = run(
      ZODEX,
      ['publisher', '--write-mode', 'read-only', '--socket', path.join(folder, 'p.sock'), '--state-dir', path.join(repos.root, 'state')],
      daemonEnv(),
    );
    expect(await daemon.exit).toBe(1);
    expect(daemon.stderr()).toContain(`UNSAFE_SOCKET_FOLDER: socket folder ${folder} has mode 755`);
    expect(daemon.stderr()).toContain(`chmod 700 ${folder}`);
    expect(fs.existsSync(path.join(folder, 'p.sock'))).toBe(false);
  });

  it('refuses a second publisher on a live socket', async () => {
    const socket = path.join(repos.root, 'run', 'publisher.sock');
    const args = ['--write-mode', 'read-only', '--socket', socket, '--state-dir', path.join(repos.root, 'state')];
    const first = run(ZODEX, ['publisher', ...args], daemonEnv());
    await waitFor(() => first.stderr().includes('listening on'), 'the first publisher');
    const second = run(ZODEX, ['publisher', ...args], daemonEnv());
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toContain('SOCKET_IN_USE: another publisher is already listening');
    // The first one still answers.
    await new Promise<void>((resolve, reject) =>
      net
        .connect(socket)
        .on('connect', function (this: net.Socket) {
          this.destroy();
          resolve();
        })
        .on('error', reject),
    );
    first.child.kill('SIGINT');
    expect(await first.exit).toBe(0);
  });
});
