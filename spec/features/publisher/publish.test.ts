// The daemon and zodex-agent together, against real git (a bare repository as the remote) and a
// fake GitHub REST server: each write mode, each refusal, failures midway.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriteMode } from '../../../src/bounds/modes.js';
import {
  agent,
  closedPort,
  makeRepos,
  OWNER,
  remoteBranch,
  REPO,
  startDaemon,
  startFakeGitHub,
  TOKEN,
  type DaemonHandle,
  type DaemonSetup,
  type FakeGitHub,
  type Repos,
} from './helpers.js';

let repos: Repos;
let github: FakeGitHub;
let handle: DaemonHandle | undefined;

beforeEach(async () => {
  repos = makeRepos();
  github = await startFakeGitHub();
});

afterEach(async () => {
  await handle?.daemon.close();
  handle = undefined;
  await github.close();
  fs.rmSync(repos.root, { recursive: true, force: true });
});

async function daemon(mode: WriteMode, extra: Partial<DaemonSetup> = {}): Promise<DaemonHandle> {
  handle = await startDaemon({ repos, mode, apiBase: github.apiBase, ...extra });
  return handle;
}

function pullRequests() {
  return github.requests.filter((request) => request.method === 'POST');
}

describe('publish-pr mode', () => {
  it('pushes the branch to the remote at HEAD and opens the PR with the token, then prints its URL', async () => {
    const { socketPath, history, logLines } = await daemon('publish-pr');
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.stderr).toContain('opened pull request #7 into main');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`https://github.example/${OWNER}/${REPO}/pull/7\n`);
    expect(remoteBranch(repos, 'feature')).toBe(repos.head);

    const [post] = pullRequests();
    expect(post?.url).toBe(`/repos/${OWNER}/${REPO}/pulls`);
    expect(post?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(post?.headers.accept).toBe('application/vnd.github+json');
    expect(post?.headers['x-github-api-version']).toBe('2022-11-28');
    expect(JSON.parse(post?.body ?? '')).toEqual({ title: 'Add the feature', head: 'feature', base: 'main', body: 'It does things.', draft: false });

    expect(history.rows).toEqual([
      {
        agentId: 'ab12',
        repository: `${OWNER}/${REPO}`,
        branch: 'feature',
        commit: repos.head,
        prUrl: `https://github.example/${OWNER}/${REPO}/pull/7`,
        outcome: 'published',
        mode: 'publish-pr',
      },
    ]);
    expect(logLines.filter((line) => line.includes('op=publish-pr'))).toHaveLength(1);
    expect(logLines.at(-1)).toMatch(/op=publish-pr agent=ab12 repo=acme\/widgets branch=feature .* outcome=ok$/);
  });

  it('asks GitHub for the default branch when --base is omitted, and passes --title, --body-file and --draft', async () => {
    github.defaultBranch = 'develop';
    repos.git(repos.work, 'push', '-q', 'origin', 'main:develop');
    const { socketPath } = await daemon('publish-pr');
    fs.writeFileSync(path.join(repos.root, 'body.md'), 'Body from a file\n');
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--title', 'My title', '--body-file', '../body.md', '--draft']);
    expect(run.code).toBe(0);
    const get = github.requests.find((request) => request.method === 'GET');
    expect(get?.url).toBe(`/repos/${OWNER}/${REPO}`);
    expect(get?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(pullRequests()[0]?.body ?? '')).toEqual({ title: 'My title', head: 'feature', base: 'develop', body: 'Body from a file\n', draft: true });
  });

  it('reads the body from stdin with --body-file -', async () => {
    const { socketPath } = await daemon('publish-pr');
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main', '--body-file', '-'], { stdin: 'piped body' });
    expect(run.code).toBe(0);
    expect(JSON.parse(pullRequests()[0]?.body ?? '').body).toBe('piped body');
  });

  it('publishing again after a new commit updates the branch and reports the PR already open', async () => {
    const { socketPath } = await daemon('publish-pr');
    expect((await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main'])).code).toBe(0);
    fs.writeFileSync(path.join(repos.work, 'more.txt'), 'more\n');
    repos.git(repos.work, 'add', '.');
    repos.git(repos.work, 'commit', '-q', '-m', 'More');
    github.pulls = 'exists';
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`https://github.example/${OWNER}/${REPO}/pull/3\n`);
    expect(run.stderr).toContain('updated the open pull request #3');
    expect(remoteBranch(repos, 'feature')).toBe(repos.git(repos.work, 'rev-parse', 'HEAD'));
  });

  it('refuses `github push` (direct pushes need direct mode)', async () => {
    const { socketPath, history } = await daemon('publish-pr');
    const run = await agent(repos, socketPath, ['github', 'push', '--to', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^zodex-agent: WRITE_MODE_NO_DIRECT: .*use zodex-agent github publish-pr/);
    expect(remoteBranch(repos, 'main')).not.toBe(repos.head);
    expect(history.rows[0]).toMatchObject({ outcome: 'refused', mode: 'publish-pr (push)' });
  });
});

describe('read-only mode', () => {
  it('refuses publish-pr and push, touching neither the remote nor GitHub', async () => {
    const { socketPath, history } = await daemon('read-only', { token: undefined });
    const pr = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(pr.code).toBe(1);
    expect(pr.stderr).toMatch(/^zodex-agent: WRITE_MODE_READ_ONLY: the publisher is in read-only mode/);
    const push = await agent(repos, socketPath, ['github', 'push']);
    expect(push.code).toBe(1);
    expect(push.stderr).toContain('WRITE_MODE_READ_ONLY');
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
    expect(github.requests).toEqual([]);
    expect(history.rows.map((row) => row.outcome)).toEqual(['refused', 'refused']);
  });

  it('shows the mode in `github status`', async () => {
    const { socketPath } = await daemon('read-only', { token: undefined });
    const run = await agent(repos, socketPath, ['github', 'status']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^write mode: read-only\n/);
    expect(run.stdout).toContain('token absent');
    expect(run.stdout).toContain('protected branches: main, master, release/*');
    expect(run.stdout).toContain(`allowed remotes: ${repos.remote} (acme/widgets)`);
    expect(run.stdout).toContain('agent id: ab12');
  });
});

describe("the session's write mode (zodexd's, in ZODEX_WRITE_MODE)", () => {
  it('github status says whether zodexd and the publisher agree, and read-only never asks the publisher', async () => {
    const { socketPath } = await daemon('publish-pr');
    const agree = await agent(repos, socketPath, ['github', 'status'], { sessionMode: 'publish-pr' });
    expect(agree.stdout).toMatch(/^write mode: publish-pr \(zodexd and the publisher agree\)\n/);
    const differ = await agent(repos, socketPath, ['github', 'status'], { sessionMode: 'direct' });
    expect(differ.stdout).toMatch(/^write mode: publish-pr \(the publisher's; zodexd runs this session in direct: they disagree/);
    const readOnly = await agent(repos, path.join(repos.root, 'no-such.sock'), ['github', 'status'], { sessionMode: 'read-only' });
    expect(readOnly).toMatchObject({
      code: 0,
      stdout: 'write mode: read-only (zodexd)\npublisher: out of reach: in read-only mode commands cannot push or open pull requests at all\n',
    });
  });

  it('refuses locally what the session mode forbids, and the publisher refuses a request whose mode is not its own', async () => {
    const { socketPath, history } = await daemon('publish-pr');
    const readOnly = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main'], { sessionMode: 'read-only' });
    expect(readOnly.stderr).toMatch(/^zodex-agent: WRITE_MODE_READ_ONLY: zodexd runs this session in read-only mode/);
    const push = await agent(repos, socketPath, ['github', 'push'], { sessionMode: 'publish-pr' });
    expect(push.stderr).toMatch(/^zodex-agent: WRITE_MODE_NO_DIRECT: zodexd runs this session in publish-pr mode/);
    expect(history.rows).toEqual([]); // neither reached the publisher
    const claimed = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main'], { sessionMode: 'direct' });
    expect(claimed.stderr).toMatch(/^zodex-agent: WRITE_MODE_MISMATCH: zodexd runs this session in direct mode but this publisher runs in publish-pr/);
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
    expect(github.requests).toEqual([]);
    expect(history.rows).toMatchObject([{ outcome: 'refused' }]);
  });
});

describe('direct mode', () => {
  it('pushes HEAD to the target branch (fast-forward) and still opens PRs', async () => {
    const { socketPath, history } = await daemon('direct');
    const status = await agent(repos, socketPath, ['github', 'status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ mode: 'direct', tokenLoaded: true });

    const before = remoteBranch(repos, 'main');
    const run = await agent(repos, socketPath, ['github', 'push', '--to', 'main']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`pushed ${repos.head.slice(0, 12)} to acme/widgets main (${before?.slice(0, 12)}..${repos.head.slice(0, 12)})\n`);
    expect(remoteBranch(repos, 'main')).toBe(repos.head);
    expect(github.requests).toEqual([]);
    expect(history.rows[0]).toMatchObject({ branch: 'main', commit: repos.head, outcome: 'published', mode: 'direct (push)' });

    const pr = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'develop']);
    expect(pr.code).toBe(0);
  });

  it('never forces: a push that is not a fast-forward is rejected and the remote keeps its commit', async () => {
    const { socketPath } = await daemon('direct');
    repos.git(repos.work, 'switch', '-q', '-c', 'side', 'main');
    fs.writeFileSync(path.join(repos.work, 'side.txt'), 'side\n');
    repos.git(repos.work, 'add', '.');
    repos.git(repos.work, 'commit', '-q', '-m', 'side');
    const mainBefore = remoteBranch(repos, 'main');
    // Move the remote's main ahead with a commit the checkout lacks.
    repos.git(repos.work, 'push', '-q', 'origin', 'feature:main');
    const run = await agent(repos, socketPath, ['github', 'push', '--to', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/PUSH_REJECTED: .*never forces/);
    expect(remoteBranch(repos, 'main')).toBe(repos.head);
    expect(mainBefore).not.toBe(repos.head);
  });

  it('pushes to the checked-out branch name when --to is omitted', async () => {
    const { socketPath } = await daemon('direct');
    const run = await agent(repos, socketPath, ['github', 'push']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('acme/widgets feature (new branch');
    expect(remoteBranch(repos, 'feature')).toBe(repos.head);
  });
});

describe('refusals (publish-pr mode): each leaves the remote and GitHub untouched', () => {
  async function refused(args: string[], code: string, cwd?: string): Promise<string> {
    const { socketPath, history } = handle ?? (await daemon('publish-pr'));
    const run = await agent(repos, socketPath, ['github', 'publish-pr', ...args], cwd ? { cwd } : {});
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stderr).toMatch(new RegExp(`^zodex-agent: ${code}: `));
    expect(pullRequests()).toEqual([]);
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
    const row = history.rows.at(-1);
    if (row) expect(row.error).toMatch(new RegExp(`^${code}: `));
    return run.stderr;
  }

  it('a modified tracked file', async () => {
    fs.appendFileSync(path.join(repos.work, 'README.md'), 'edit\n');
    expect(await refused(['--base', 'main'], 'DIRTY_WORKTREE')).toContain('README.md');
  });

  it('a staged change', async () => {
    fs.writeFileSync(path.join(repos.work, 'staged.txt'), 'x\n');
    repos.git(repos.work, 'add', 'staged.txt');
    expect(await refused(['--base', 'main'], 'DIRTY_WORKTREE')).toContain('staged.txt');
  });

  it('an untracked file', async () => {
    fs.mkdirSync(path.join(repos.work, 'notes'));
    fs.writeFileSync(path.join(repos.work, 'notes', 'todo.txt'), 'x\n');
    const message = await refused(['--base', 'main'], 'DIRTY_WORKTREE');
    expect(message).toContain('notes/todo.txt');
    expect(message).toContain('commit them');
  });

  it('a detached HEAD', async () => {
    repos.git(repos.work, 'checkout', '-q', '--detach', 'HEAD');
    expect(await refused(['--base', 'main'], 'DETACHED_HEAD')).toContain('git switch -c');
  });

  it('publishing the base branch itself', async () => {
    repos.git(repos.work, 'switch', '-q', '-c', 'develop');
    expect(await refused(['--base', 'develop'], 'BASE_BRANCH')).toContain('topic branch');
  });

  it('the base branch learned from GitHub', async () => {
    github.defaultBranch = 'feature';
    await daemon('publish-pr', { protectedBranches: [] });
    await refused([], 'BASE_BRANCH');
  });

  it('a protected branch (default list)', async () => {
    repos.git(repos.work, 'switch', '-q', '-c', 'release/2.0');
    expect(await refused(['--base', 'develop'], 'PROTECTED_BRANCH')).toContain('pattern release/*');
  });

  it('a protected branch (configured list)', async () => {
    await daemon('publish-pr', { protectedBranches: ['prod-*'] });
    repos.git(repos.work, 'switch', '-q', '-c', 'prod-eu');
    await refused(['--base', 'main'], 'PROTECTED_BRANCH');
  });

  it('master, protected even as the head of a PR into another base', async () => {
    repos.git(repos.work, 'switch', '-q', '-c', 'master');
    await refused(['--base', 'develop'], 'PROTECTED_BRANCH');
  });

  it('a remote outside the allowed list', async () => {
    await daemon('publish-pr', { allowedRemotes: [{ repo: 'acme/other' }, { url: '/srv/git/elsewhere.git', repo: 'acme/x' }] });
    const message = await refused(['--base', 'main'], 'REMOTE_NOT_ALLOWED');
    expect(message).toContain(repos.remote);
    expect(message).toContain('acme/other, /srv/git/elsewhere.git (acme/x)');
  });

  it('a checkout without the remote', async () => {
    await refused(['--base', 'main', '--remote', 'upstream'], 'REMOTE_MISSING');
  });

  it('a directory that is not a checkout', async () => {
    await refused(['--base', 'main'], 'NOT_A_GIT_CHECKOUT', repos.home);
  });
});

describe('the daemon checks, it does not trust the client', () => {
  it('refuses a claimed commit that is not HEAD, and a claimed branch that is not checked out', async () => {
    const { socketPath } = await daemon('publish-pr');
    const { sendPublisherRequest } = await import('../../../src/features/publisher/client.js');
    const base = { op: 'publish-pr', repoPath: repos.work, branch: 'feature', title: 't', base: 'main' };
    const wrongCommit = await sendPublisherRequest(socketPath, { ...base, commit: 'a'.repeat(40) }, 'r1');
    expect(wrongCommit).toMatchObject({ id: 'r1', ok: false, error: { code: 'COMMIT_MISMATCH' } });
    const wrongBranch = await sendPublisherRequest(socketPath, { ...base, branch: 'other', commit: repos.head }, 'r2');
    expect(wrongBranch).toMatchObject({ ok: false, error: { code: 'BRANCH_MISMATCH' } });
    const relative = await sendPublisherRequest(socketPath, { ...base, repoPath: 'work', commit: repos.head }, 'r3');
    expect(relative).toMatchObject({ ok: false, error: { code: 'NOT_A_GIT_CHECKOUT' } });
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
    expect(pullRequests()).toEqual([]);
  });

  it('answers malformed requests with BAD_REQUEST / UNSUPPORTED_VERSION and keeps serving', async () => {
    const { socketPath } = await daemon('publish-pr');
    const net = await import('node:net');
    const raw = (line: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(socketPath, () => socket.write(line));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
      });
    expect(JSON.parse(await raw('not json\n'))).toMatchObject({ id: null, ok: false, error: { code: 'BAD_REQUEST' } });
    expect(JSON.parse(await raw('{"version":2,"id":"x","op":"status"}\n'))).toMatchObject({ id: 'x', error: { code: 'UNSUPPORTED_VERSION' } });
    const bad = JSON.parse(await raw('{"version":1,"id":"y","op":"publish-pr","repoPath":"/x","branch":"b","commit":"zz","title":"t"}\n'));
    expect(bad).toMatchObject({ id: 'y', error: { code: 'BAD_REQUEST' } });
    expect(bad.error.message).toContain('commit');
    expect(JSON.parse(await raw('{"version":1,"id":"z","op":"status"}\n'))).toMatchObject({ id: 'z', ok: true, result: { mode: 'publish-pr' } });
  });
});

describe('failures midway: nothing stays half published', () => {
  it('GitHub answers 500 to the PR: the pushed branch is deleted from the remote again', async () => {
    const { socketPath, history } = await daemon('publish-pr');
    github.pulls = 500;
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^zodex-agent: GITHUB_API_ERROR: opening a pull request on acme\/widgets: GitHub answered HTTP 500: Server Error; the push was undone \(branch feature was deleted from the remote again\), nothing is published/,
    );
    expect(pullRequests()).toHaveLength(1);
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
    expect(history.rows[0]).toMatchObject({ outcome: 'failed', branch: 'feature', commit: repos.head });
  });

  it('the connection drops during the PR request: same rollback', async () => {
    const { socketPath } = await daemon('publish-pr');
    github.pulls = 'hang-up';
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/GITHUB_UNREACHABLE: .*no answer from .*deleted from the remote again/);
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
  });

  it('the API port is unreachable: the push is undone and the error names the API', async () => {
    const port = await closedPort();
    const { socketPath } = await daemon('publish-pr', { apiBase: `http://127.0.0.1:${port}` });
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`GITHUB_UNREACHABLE: opening a pull request on acme/widgets: no answer from http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(run.stderr).toContain('the push was undone');
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
  });

  it('the API is unreachable before the push (learning the base): nothing is pushed', async () => {
    const port = await closedPort();
    const { socketPath } = await daemon('publish-pr', { apiBase: `http://127.0.0.1:${port}` });
    const run = await agent(repos, socketPath, ['github', 'publish-pr']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/GITHUB_UNREACHABLE: reading acme\/widgets: no answer/);
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
  });

  it('an updated branch is put back to its previous commit when the PR fails', async () => {
    const { socketPath } = await daemon('publish-pr');
    repos.git(repos.work, 'push', '-q', 'origin', 'feature');
    fs.writeFileSync(path.join(repos.work, 'more.txt'), 'more\n');
    repos.git(repos.work, 'add', '.');
    repos.git(repos.work, 'commit', '-q', '-m', 'More');
    github.pulls = 502;
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`branch feature was put back to ${repos.head.slice(0, 12)}`);
    expect(remoteBranch(repos, 'feature')).toBe(repos.head);
  });

  it('the push itself fails (the remote refuses it): no PR is requested and nothing is published', async () => {
    const { socketPath, history } = await daemon('publish-pr');
    const hook = path.join(repos.remote, 'hooks', 'pre-receive');
    fs.writeFileSync(hook, '#!/bin/sh\necho "disk quota exceeded" >&2\nexit 1\n', { mode: 0o755 });
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^zodex-agent: PUSH_REJECTED: .* refused the push of feature: .*disk quota exceeded.*; nothing was published$/m);
    expect(pullRequests()).toEqual([]);
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
    expect(history.rows[0]).toMatchObject({ outcome: 'failed' });
  });

  it('the remote cannot be reached at all: PUSH_FAILED, no PR requested', async () => {
    const { socketPath } = await daemon('publish-pr');
    fs.renameSync(repos.remote, `${repos.remote}.moved`);
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^zodex-agent: PUSH_FAILED: cannot reach .*nothing was published/);
    expect(pullRequests()).toEqual([]);
  });

  it('a bad token is reported as such, and the branch is not left behind', async () => {
    const { socketPath } = await daemon('publish-pr', { token: 'ghp_wrongwrongwrong' });
    const run = await agent(repos, socketPath, ['github', 'publish-pr', '--base', 'main']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('HTTP 401: Bad credentials (the publisher token was not accepted; the operator must renew it)');
    expect(run.stderr).not.toContain('ghp_wrong');
    expect(remoteBranch(repos, 'feature')).toBeUndefined();
  });
});

describe('zodex-agent without a daemon, and usage', () => {
  it('says GitHub writes are unavailable when no publisher runs', async () => {
    const run = await agent(repos, path.join(repos.root, 'nothing.sock'), ['github', 'status']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^zodex-agent: PUBLISHER_UNREACHABLE: cannot reach the publisher at .*no publisher daemon is running there.*read-only/);
  });

  it('exits 2 on usage errors', async () => {
    const socket = path.join(repos.root, 'nothing.sock');
    for (const args of [
      [],
      ['gitlab', 'status'],
      ['github'],
      ['github', 'merge'],
      ['github', 'status', '--draft'],
      ['github', 'publish-pr', '--nope'],
      ['github', 'status', 'extra'],
    ]) {
      const run = await agent(repos, socket, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^zodex-agent: .*; see zodex-agent --help\n$/);
    }
    const help = await agent(repos, socket, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('github publish-pr');
  });
});
