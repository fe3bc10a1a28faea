// Publishing a branch the way an agent would (seed 000, issue 9): commit under exec_command, run
// `zodex-agent github publish-pr`, and the publisher daemon pushes and opens the PR with a token
// that nothing the agent can read ever contains.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import { fakeGitHub, type PullRequest } from '../harness/github.js';
import { REPO_ROOT } from '../harness/target.js';
import type { Zodex } from '../harness/zodex.js';

const TOKEN = 'ghp_CONFORMANCEtoken0123456789SECRET';

interface World {
  root: string;
  remote: string;
  socket: string;
  stateDir: string;
  agentBin: string;
  pulls: PullRequest[];
  daemonLog(): string;
  close(): Promise<void>;
}

// A bare remote, a fake GitHub REST API, and a publisher daemon in the given mode.
async function world(mode: 'read-only' | 'publish-pr' | 'direct'): Promise<World> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-publish-')));
  fs.chmodSync(root, 0o700);
  const remote = path.join(root, 'remote.git');
  const seed = path.join(root, 'seed');
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe' });
  git(root, 'init', '--bare', '-q', remote);
  git(root, 'clone', '-q', remote, seed);
  fs.writeFileSync(path.join(seed, 'README.md'), '# widgets\n');
  git(seed, 'add', '.');
  git(seed, 'commit', '-q', '-m', 'initial');
  git(seed, 'push', '-q', 'origin', 'HEAD:main');

  const { server: api, pulls } = fakeGitHub(42);
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

  const tokenFile = path.join(root, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const config = path.join(root, 'publisher.json');
  fs.writeFileSync(config, JSON.stringify({ allowedRemotes: [{ url: remote, repo: 'acme/widgets' }], apiBase }));
  const socketDir = path.join(root, 'run');
  fs.mkdirSync(socketDir, { mode: 0o700 });
  const socket = path.join(socketDir, 'publisher.sock');
  const stateDir = path.join(root, 'state');
  // The agent runs as the daemon's user here, so the operator's flag says the token is then readable.
  const daemonArgs = [
    '--write-mode',
    mode,
    '--socket',
    socket,
    '--state-dir',
    stateDir,
    '--allow-same-user-token-readable',
    ...(mode === 'read-only' ? [] : ['--token-file', tokenFile, '--config', config]),
  ];
  const daemon: ChildProcess = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/cli/zodex.js'), 'publisher', ...daemonArgs], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  daemon.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  daemon.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await expect.poll(() => fs.existsSync(socket), { timeout: 10_000, message: `daemon did not start:\n${log}` }).toBe(true);

  // What `npm install -g zodex` would put on PATH.
  const agentBin = path.join(root, 'bin', 'zodex-agent');
  fs.mkdirSync(path.dirname(agentBin));
  fs.writeFileSync(agentBin, `#!/bin/sh\nexec '${process.execPath}' '${path.join(REPO_ROOT, 'dist/cli/zodex-agent.js')}' "$@"\n`, { mode: 0o755 });

  return {
    root,
    remote,
    socket,
    stateDir,
    agentBin,
    pulls,
    daemonLog: () => log,
    async close() {
      daemon.kill('SIGTERM');
      await new Promise((resolve) => (daemon.exitCode !== null ? resolve(null) : daemon.on('exit', resolve)));
      api.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

function serverArgs(w: World, mode: string): { args: string[]; env: Record<string, string> } {
  return {
    args: ['--state-dir', w.stateDir, '--write-mode', mode],
    env: { ZODEX_PUBLISHER_SOCKET: w.socket, GITHUB_TOKEN: 'ghp_userTokenFromTheLoginEnvironment', GH_TOKEN: 'gh_userToken' },
  };
}

// The agent's part: clone, branch, commit, publish, all through exec_command.
async function agentPublishes(z: Zodex, w: World): Promise<{ output: string; exitCode: number | undefined }> {
  const work = `${w.root}/work`;
  const cmd = [
    `git clone -q '${w.remote}' '${work}'`,
    `cd '${work}'`,
    'git switch -q -c add-widget',
    'echo "a widget" > widget.txt',
    'git add widget.txt',
    'git -c user.name=Agent -c user.email=agent@example.com commit -q -m "Add a widget"',
    `'${w.agentBin}' github publish-pr --title 'Add a widget' --base main`,
  ].join(' && ');
  const first = await z.exec({ cmd, workdir: w.root, yield_time_ms: 60_000 }, { timeout: 90_000 });
  const { result, output } = await z.finish(first);
  return { output, exitCode: result.exit_code };
}

requirement('publisher.publish-pr', async ({ zodex }) => {
  test.setTimeout(120_000);
  const w = await world('publish-pr');
  try {
    const { args, env } = serverArgs(w, 'publish-pr');
    const z = await zodex({ args, env });
    const { output, exitCode } = await agentPublishes(z, w);
    expect(exitCode, output).toBe(0);
    expect(output).toContain('https://github.example/acme/widgets/pull/42');
    const head = execFileSync('git', ['rev-parse', 'add-widget'], { cwd: `${w.root}/work`, encoding: 'utf8' }).trim();
    expect(execFileSync('git', ['rev-parse', 'refs/heads/add-widget'], { cwd: w.remote, encoding: 'utf8' }).trim()).toBe(head);
    expect(w.pulls).toHaveLength(1);
    expect(w.pulls[0]!.authorization).toBe(`Bearer ${TOKEN}`);
    expect(w.pulls[0]!.body).toMatchObject({ title: 'Add a widget', head: 'add-widget', base: 'main' });
    // recorded in the history store
    const history = execFileSync(process.execPath, [path.join(REPO_ROOT, 'dist/cli/zodex.js'), 'history', '--json', '--state-dir', w.stateDir], {
      encoding: 'utf8',
    });
    expect(history).toContain('zodex-agent');
    const db =
      fs.readFileSync(path.join(w.stateDir, 'zodex.db')).toString('latin1') +
      (fs.existsSync(path.join(w.stateDir, 'zodex.db-wal')) ? fs.readFileSync(path.join(w.stateDir, 'zodex.db-wal')).toString('latin1') : '');
    expect(db).toContain('https://github.example/acme/widgets/pull/42');
  } finally {
    await w.close();
  }
});

requirement('publisher.no-leak', async ({ zodex }) => {
  test.setTimeout(120_000);
  const w = await world('publish-pr');
  try {
    const { args, env } = serverArgs(w, 'publish-pr');
    const z = await zodex({ args, env: { ...env, ZODEX_PUBLISHER_TOKEN: TOKEN } });
    const seen: string[] = [];
    const published = await agentPublishes(z, w);
    expect(published.exitCode, published.output).toBe(0);
    seen.push(published.output);
    // everything the agent can look at from its sessions
    seen.push((await z.exec({ cmd: 'env; cat /proc/self/environ | tr "\\0" "\\n"', workdir: '/' })).output);
    const spilled = await z.exec({ cmd: `env; seq 1 50000; cat '${w.root}/work/.git/config'`, workdir: '/' });
    expect(spilled.output_file).toBeDefined();
    seen.push(fs.readFileSync(spilled.output_file!, 'utf8'));
    seen.push(execFileSync('git', ['log', '--all', '-p'], { cwd: w.remote, encoding: 'utf8' }));
    seen.push(w.daemonLog());
    seen.push(z.server.stderr());
    for (const file of fs.readdirSync(w.stateDir)) {
      const full = path.join(w.stateDir, file);
      if (fs.statSync(full).isFile()) seen.push(fs.readFileSync(full).toString('latin1'));
    }
    expect(seen.join('\n').length).toBeGreaterThan(1000);
    for (const text of seen) expect(text).not.toContain(TOKEN);
  } finally {
    await w.close();
  }
});

requirement('publisher.write-mode', async ({ zodex }) => {
  test.setTimeout(120_000);
  const w = await world('read-only');
  try {
    const { args, env } = serverArgs(w, 'read-only');
    const z = await zodex({ args, env });
    const { output, exitCode } = await agentPublishes(z, w);
    expect(exitCode).toBe(1);
    expect(output).toMatch(/read-only/);
    expect(w.pulls).toHaveLength(0);
    const vars = (await z.exec({ cmd: 'echo "[$GITHUB_TOKEN][$GH_TOKEN][$ZODEX_WRITE_MODE]"', workdir: '/' })).output;
    expect(vars).toBe('[][][read-only]\n');
    // (without the read-only publisher: a direct zodexd refuses to start beside a publisher of another mode)
    const direct = await zodex({ args: ['--write-mode', 'direct'], env: { ...env, ZODEX_PUBLISHER_SOCKET: `${w.root}/none.sock` } });
    expect((await direct.exec({ cmd: 'echo "[$GH_TOKEN][$ZODEX_WRITE_MODE]"', workdir: '/' })).output).toBe('[gh_userToken][direct]\n');
  } finally {
    await w.close();
  }
});
