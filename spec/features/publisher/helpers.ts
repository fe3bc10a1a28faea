// Test fixtures for the publisher: real git repositories (a bare "remote" and an agent
// checkout), a fake GitHub REST server, a git-over-HTTP server (git http-backend behind a
// node:http bridge that checks the Authorization header), an in-process daemon on a temp socket,
// and zodex-agent run in-process with its output captured.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { serveGitCgi } from '../../../packages/conformance/harness/git-http.js';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { runAgentCli } from '../../../src/features/publisher/agent.js';
import type { WriteMode } from '../../../src/bounds/modes.js';
import { parsePublisherConfig } from '../../../src/features/publisher/config.js';
import { startPublisherDaemon, type PublisherDaemon } from '../../../src/features/publisher/daemon.js';
import { MemoryPublicationLog } from '../../../src/features/publisher/history.js';
import { AGENT_ID_ENV, PUBLISHER_SECRET_ENV, PUBLISHER_SOCKET_ENV } from '../../../src/features/publisher/paths.js';
import type { PeerPolicy } from '../../../src/features/publisher/peers.js';
import { Secret } from '../../../src/features/publisher/token.js';

export const TOKEN = 'ghp_TESTtoken0123456789abcdefSECRET';
export const OWNER = 'acme';
export const REPO = 'widgets';

export function tempDir(prefix = 'zodex-pub-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  return dir;
}

// git with a fixed identity and no user/system config, so tests do not depend on the machine.
export function gitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig') };
  for (const name of PUBLISHER_SECRET_ENV) delete env[name];
  return env;
}

export function git(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export interface Repos {
  root: string;
  home: string;
  env: NodeJS.ProcessEnv;
  remote: string; // bare repository
  work: string; // the agent's checkout, on branch `feature` with one commit over main
  head: string;
  git(cwd: string, ...args: string[]): string;
}

export function makeRepos(root = tempDir()): Repos {
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(
    path.join(home, '.gitconfig'),
    '[user]\n\tname = Agent\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n',
  );
  const env = gitEnv(home);
  const run = (cwd: string, ...args: string[]) => git(cwd, env, ...args);
  const remote = path.join(root, 'remote.git');
  const work = path.join(root, 'work');
  run(root, 'init', '--bare', '-q', remote);
  run(root, 'clone', '-q', remote, work);
  fs.writeFileSync(path.join(work, 'README.md'), '# widgets\n');
  run(work, 'add', '.');
  run(work, 'commit', '-q', '-m', 'initial');
  run(work, 'push', '-q', 'origin', 'main');
  run(work, 'switch', '-q', '-c', 'feature');
  fs.writeFileSync(path.join(work, 'feature.txt'), 'a feature\n');
  run(work, 'add', '.');
  run(work, 'commit', '-q', '-m', 'Add the feature', '-m', 'It does things.');
  return { root, home, env, remote, work, head: run(work, 'rev-parse', 'HEAD'), git: run };
}

export function remoteBranch(repos: Repos, branch: string): string | undefined {
  try {
    return git(repos.remote, repos.env, 'rev-parse', '--verify', '-q', `refs/heads/${branch}`);
  } catch {
    return undefined;
  }
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FakeGitHub {
  apiBase: string;
  requests: RecordedRequest[];
  // How POST /pulls answers: 'created' (201), a status number (an error), or 'hang-up'.
  pulls: 'created' | 'exists' | number | 'hang-up';
  defaultBranch: string;
  close(): Promise<void>;
}

// The REST endpoints the publisher uses, for acme/widgets. Answers 401 without the right token.
export async function startFakeGitHub(): Promise<FakeGitHub> {
  const state: FakeGitHub = {
    apiBase: '',
    requests: [],
    pulls: 'created',
    defaultBranch: 'main',
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      state.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { message: 'Bad credentials' });
      const base = `/repos/${OWNER}/${REPO}`;
      if (req.method === 'GET' && req.url === base) return send(200, { full_name: `${OWNER}/${REPO}`, default_branch: state.defaultBranch });
      if (req.method === 'POST' && req.url === `${base}/pulls`) {
        if (state.pulls === 'hang-up') return req.socket.destroy();
        if (state.pulls === 'exists')
          return send(422, {
            message: 'Validation Failed',
            errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for acme:feature.' }],
          });
        if (typeof state.pulls === 'number') return send(state.pulls, { message: 'Server Error' });
        const input = JSON.parse(body) as { head: string };
        return send(201, { number: 7, html_url: `https://github.example/${OWNER}/${REPO}/pull/7`, head: { ref: input.head } });
      }
      if (req.method === 'GET' && req.url?.startsWith(`${base}/pulls?`)) {
        return send(200, [{ number: 3, html_url: `https://github.example/${OWNER}/${REPO}/pull/3` }]);
      }
      send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

// A port nothing listens on.
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface GitHttpServer {
  url: string; // http://127.0.0.1:PORT/widgets.git
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

// Smart HTTP for `bare` via `git http-backend` (CGI); 401 unless Authorization matches `expected`.
export async function startGitHttpServer(bare: string, expected: string, home: string): Promise<GitHttpServer> {
  const authorizations: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' });
      res.end();
      return;
    }
    serveGitCgi(req, res, { projectRoot: path.dirname(bare), remoteUser: 'x-access-token', extra: { HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${path.basename(bare)}`,
    authorizations,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// A git that logs each call (argv, and the sha256 of any extraHeader it was given) and its
// whole environment to `logDir`, then runs the real git.
export function gitWrapper(dir: string, logDir: string): string {
  fs.mkdirSync(logDir, { recursive: true });
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const file = path.join(dir, 'git');
  fs.writeFileSync(
    file,
    `#!/bin/sh
n=$(date +%s%N)-$$
{ printf 'ARGV'; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\\n'; } >> "${logDir}/argv.log"
env > "${logDir}/env-$n.txt"
printf '%s\\n' "$*" > "${logDir}/args-$n.txt"
exec "${realGit}" "$@"
`,
    { mode: 0o700 },
  );
  return file;
}

export interface DaemonHandle {
  daemon: PublisherDaemon;
  socketPath: string;
  logLines: string[];
  history: MemoryPublicationLog;
  stateDir: string;
}

export interface DaemonSetup {
  repos: Repos;
  mode: WriteMode;
  apiBase: string;
  allowedRemotes?: unknown[];
  protectedBranches?: string[];
  token?: string | undefined;
  gitBinary?: string;
  // Default: same-user clients served (these tests connect as the daemon's own user).
  peers?: PeerPolicy;
  socketGroup?: number;
  folder?: string;
}

export async function startDaemon(setup: DaemonSetup): Promise<DaemonHandle> {
  const folder = setup.folder ?? path.join(setup.repos.root, 'sock');
  const stateDir = path.join(setup.repos.root, 'state');
  const logLines: string[] = [];
  const history = new MemoryPublicationLog();
  const config = parsePublisherConfig({
    apiBase: setup.apiBase,
    allowedRemotes: setup.allowedRemotes ?? [{ url: setup.repos.remote, repo: `${OWNER}/${REPO}` }],
    ...(setup.protectedBranches ? { protectedBranches: setup.protectedBranches } : {}),
  });
  const token = 'token' in setup ? setup.token : TOKEN;
  const daemon = await startPublisherDaemon({
    socketPath: path.join(folder, 'publisher.sock'),
    mode: setup.mode,
    config,
    token: token === undefined ? undefined : new Secret(token),
    stateDir,
    publications: history,
    log: (line) => logLines.push(line),
    version: '0.0.0-test',
    env: { ...setup.repos.env, HOME: setup.repos.home },
    ...(setup.gitBinary ? { gitBinary: setup.gitBinary } : {}),
    peers: setup.peers ?? { allowSameUser: true },
    ...(setup.socketGroup !== undefined ? { socketGroup: setup.socketGroup } : {}),
  });
  return { daemon, socketPath: daemon.socketPath, logLines, history, stateDir };
}

export interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
  env: NodeJS.ProcessEnv;
}

// The environment zodexd gives an exec_command session: its own minus the publisher's secrets,
// plus where the publisher is and who the agent is.
export function agentEnv(repos: Repos, socketPath: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...repos.env, [PUBLISHER_SOCKET_ENV]: socketPath, [AGENT_ID_ENV]: 'ab12' };
  for (const name of PUBLISHER_SECRET_ENV) delete env[name];
  return env;
}

// `sessionMode`: the ZODEX_WRITE_MODE zodexd puts in its sessions (absent: run outside zodexd).
export async function agent(
  repos: Repos,
  socketPath: string,
  args: string[],
  options: { cwd?: string; stdin?: string; sessionMode?: string } = {},
): Promise<AgentRun> {
  let stdout = '';
  let stderr = '';
  const env = { ...agentEnv(repos, socketPath), ...(options.sessionMode ? { ZODEX_WRITE_MODE: options.sessionMode } : {}) };
  const code = await runAgentCli(args, {
    env,
    cwd: options.cwd ?? repos.work,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: async () => options.stdin ?? '',
  });
  return { code, stdout, stderr, env };
}

// Every file under `dir` whose bytes contain `needle`.
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && fs.readFileSync(full).includes(needle)) hits.push(full);
    }
  };
  walk(dir);
  return hits;
}
