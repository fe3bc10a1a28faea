// The token never reaches anything the agent can read. The whole flow runs over git's smart
// HTTP (git http-backend behind a server that demands the credential), through a git wrapper
// that records every argv and environment the daemon gives git; then the agent's output and
// environment, the daemon's log, the history rows and every file of the remote, the checkout,
// the state dir and the socket folder are searched for the token in every encoding we produce.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agent,
  filesContaining,
  gitWrapper,
  makeRepos,
  remoteBranch,
  startDaemon,
  startFakeGitHub,
  startGitHttpServer,
  tempDir,
  TOKEN,
  type AgentRun,
  type DaemonHandle,
  type FakeGitHub,
  type GitHttpServer,
  type Repos,
} from './helpers.js';

const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
const NEEDLES = [TOKEN, BASIC, Buffer.from(TOKEN).toString('base64')];

let repos: Repos;
let github: FakeGitHub;
let gitServer: GitHttpServer;
let handle: DaemonHandle;
let daemonSide: string;
const runs: AgentRun[] = [];

beforeAll(async () => {
  repos = makeRepos();
  daemonSide = tempDir('zodex-pub-daemon-side-');
  github = await startFakeGitHub();
  gitServer = await startGitHttpServer(repos.remote, `Basic ${BASIC}`, repos.home);
  repos.git(repos.work, 'remote', 'set-url', 'origin', gitServer.url);
  handle = await startDaemon({
    repos,
    mode: 'publish-pr',
    apiBase: github.apiBase,
    allowedRemotes: [{ url: gitServer.url, repo: 'acme/widgets' }],
    gitBinary: gitWrapper(daemonSide, path.join(daemonSide, 'gitlog')),
  });
  const say = async (args: string[]) => {
    const run = await agent(repos, handle.socketPath, args);
    runs.push(run);
    return run;
  };
  await say(['github', 'status']);
  await say(['github', 'publish-pr', '--base', 'main']);
  // A failure midway (PR creation fails, push undone) and a refusal, for their error texts.
  repos.git(repos.work, 'switch', '-q', '-c', 'second');
  fs.writeFileSync(path.join(repos.work, 'second.txt'), 'two\n');
  repos.git(repos.work, 'add', '.');
  repos.git(repos.work, 'commit', '-q', '-m', 'Second');
  github.pulls = 500;
  await say(['github', 'publish-pr', '--base', 'main']);
  fs.writeFileSync(path.join(repos.work, 'dirty.txt'), 'x\n');
  await say(['github', 'publish-pr', '--base', 'main']);
  await say(['github', 'push']);
});

afterAll(async () => {
  await handle?.daemon.close();
  await github?.close();
  await gitServer?.close();
  fs.rmSync(repos.root, { recursive: true, force: true });
  fs.rmSync(daemonSide, { recursive: true, force: true });
});

function gitCalls(): Array<{ args: string; env: string }> {
  const dir = path.join(daemonSide, 'gitlog');
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('args-'))
    .map((name) => ({
      args: fs.readFileSync(path.join(dir, name), 'utf8'),
      env: fs.readFileSync(path.join(dir, name.replace(/^args-/, 'env-')), 'utf8'),
    }));
}

describe('a publication over HTTPS-style git', () => {
  it('published: the branch is on the remote and the PR request carried the token', () => {
    expect(runs[1]?.code).toBe(0);
    expect(runs[1]?.stdout).toBe('https://github.example/acme/widgets/pull/7\n');
    expect(remoteBranch(repos, 'feature')).toBe(repos.head);
    const post = github.requests.find((request) => request.method === 'POST');
    expect(post?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('git sent the credential as an Authorization header on every request to the git server', () => {
    expect(gitServer.authorizations.length).toBeGreaterThanOrEqual(4); // ls-remote, push (refs + pack), undo
    expect(new Set(gitServer.authorizations)).toEqual(new Set([`Basic ${BASIC}`]));
  });

  it('the failed PR left nothing behind, the refusal touched nothing', () => {
    expect(runs[2]?.code).toBe(1);
    expect(runs[2]?.stderr).toContain('deleted from the remote again');
    expect(remoteBranch(repos, 'second')).toBeUndefined();
    expect(runs[3]?.stderr).toContain('DIRTY_WORKTREE');
    expect(runs[4]?.stderr).toContain('WRITE_MODE_NO_DIRECT');
  });
});

describe('no leak', () => {
  it('argv of every git the daemon ran is free of the token; only network commands got the header, via GIT_CONFIG_*', () => {
    const calls = gitCalls();
    expect(calls.length).toBeGreaterThan(10);
    const argvLog = fs.readFileSync(path.join(daemonSide, 'gitlog', 'argv.log'), 'utf8');
    for (const needle of NEEDLES) expect(argvLog).not.toContain(needle);
    let networked = 0;
    for (const call of calls) {
      const network = / (push|ls-remote) /.test(` ${call.args}`);
      if (network) {
        networked += 1;
        expect(call.env.split('\n')).toContain(`GIT_CONFIG_VALUE_1=Authorization: Basic ${BASIC}`);
        expect(call.env).toMatch(/^GIT_CONFIG_KEY_\d+=http\.http:\/\/127\.0\.0\.1:\d+\/\.extraHeader$/m);
        expect(call.env).toContain('GIT_CONFIG_GLOBAL=/dev/null');
      } else {
        for (const needle of NEEDLES) expect(call.env, call.args).not.toContain(needle);
      }
      expect(call.env).not.toMatch(/^ZODEX_PUBLISHER_TOKEN=/m);
    }
    expect(networked).toBeGreaterThanOrEqual(4);
  });

  it("the agent's output and environment, the daemon's log and the history rows hold no token", () => {
    const texts = {
      agentOutput: runs.map((run) => run.stdout + run.stderr).join('\n'),
      agentEnv: JSON.stringify(runs.map((run) => run.env)),
      daemonLog: handle.logLines.join('\n'),
      history: JSON.stringify(handle.history.rows),
    };
    expect(texts.daemonLog).toContain('outcome=failed GITHUB_API_ERROR');
    expect(handle.history.rows.map((row) => row.outcome)).toEqual(['published', 'failed', 'refused', 'refused']);
    for (const [name, text] of Object.entries(texts)) {
      for (const needle of NEEDLES) expect(text.includes(needle), `${name} contains the token`).toBe(false);
    }
  });

  it('no file of the remote, the checkout (config, reflogs), the state dir or the socket folder holds it', () => {
    expect(fs.existsSync(path.join(repos.work, '.git', 'logs', 'HEAD'))).toBe(true);
    expect(fs.existsSync(handle.stateDir)).toBe(true);
    for (const needle of NEEDLES) expect(filesContaining(repos.root, needle)).toEqual([]);
    const staging = fs.readFileSync(path.join(handle.stateDir, 'publisher', 'staging.git', 'config'), 'utf8');
    expect(staging).not.toContain('remote');
  });
});
