// A user's write credentials, every kind at once, and the real servers they open: the world in
// which a same-user command tries every route to a push (issue 26). Started on loopback by the
// test, as the user `owner` (root, or a normal user through setpriv):
//   - a bare repository served by `git http-backend` behind a small HTTP server with Basic auth:
//     `reader` may fetch, `writer` (and the publishers' x-access-token) may push, nobody else
//     may even read;
//   - sshd (Debian's openssh-server: its own host key and config in the scratch folder, a loopback
//     port) that lets two keys in: one in ~/.ssh, one only in an ssh-agent;
//   - a scratch HOME holding git's store (~/.git-credentials, ~/.config/git/credentials), a
//     running credential-cache daemon, ~/.netrc, gh's hosts.yml, ~/.ssh, a login rc file that
//     exports GH_TOKEN; GH_TOKEN and GITHUB_TOKEN in zodexd's environment too. Every token is the
//     writer's password, so any route that leaks one becomes a push the remote records;
//   - a publisher in publish-pr (which the read-only zodexd's socket variable names too; its token
//     in a file) and one in direct mode (its token in its environment, so in /proc/PID/environ),
//     both of the same user (--allow-same-user-token-readable), and a fake GitHub REST API for
//     their pull requests.
// routeScript(mode) tries every route from one exec_command, each pushing branch MODE-ROUTE;
// branches() reads the remote's refs: the ground truth.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serveGitCgi } from './git-http.js';
import { fakeGitHub, type PullRequest } from './github.js';
import { REPO_ROOT } from './target.js';

export type WriteModeName = 'read-only' | 'publish-pr' | 'direct';

const WRITER_PASSWORD = 'wrtPASS-5e1f0c2b9d7a4e3f8c6b1a0d';
const READER_PASSWORD = 'rdPASS-0a9b8c7d6e5f4a3b2c1d';
const PUBLISHER_TOKEN = 'ghp_PUBLISHERtoken0123456789abcdefABCD';

export interface Owner {
  uid: number;
  gid: number;
}

export interface CredentialWorld {
  root: string;
  home: string;
  remote: string;
  httpUrl: string;
  sshUrl: string;
  readCredentials: string; // a git-credentials file holding the reader's credential
  // Where the owner runs this checkout from: the checkout itself for the suite's own user;
  // otherwise an empty folder the owner may traverse to, on which whoever starts a process as
  // the owner binds the checkout in a mount namespace of its own (a checkout under a 0700 folder).
  checkout: string;
  publisherSocket(mode: WriteModeName): string;
  // zodexd's environment in this world (HOME, the agent, the token variables, PATH with zodex-agent).
  env(mode: WriteModeName): Record<string, string>;
  secrets: string[]; // what no governed command's output may ever hold
  routeScript(mode: WriteModeName): string;
  branches(): string[];
  pulls: PullRequest[];
  close(): Promise<void>;
}

const ROUTES = [
  'store',
  'xdg-store',
  'cache',
  'netrc',
  'env',
  'login-rc',
  'proc-environ',
  'gh-hosts',
  'proc-root',
  'ssh-key',
  'ssh-agent',
  'publisher-token',
  'publisher-environ',
  'publisher-push',
  'publisher-forged',
  'read-credential',
] as const;
export type Route = (typeof ROUTES)[number] | 'publish-pr';
export const ALL_ROUTES: readonly Route[] = [...ROUTES, 'publish-pr'];

function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; owner?: Owner; input?: string } = {}): string {
  const [cmd, argv] =
    options.owner && options.owner.uid !== process.getuid?.()
      ? ['setpriv', [`--reuid=${options.owner.uid}`, `--regid=${options.owner.gid}`, '--clear-groups', file, ...args]]
      : [file, args];
  return execFileSync(cmd as string, argv as string[], {
    // Another user may not enter this process's folder (a checkout under a 0700 folder): '/' then.
    cwd: options.cwd ?? (options.owner ? '/' : undefined),
    env: options.env ?? process.env,
    input: options.input,
    stdio: ['pipe', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
}

function chownTree(dir: string, owner: Owner): void {
  execFileSync('chown', ['-R', `${owner.uid}:${owner.gid}`, dir]);
}

// The git smart-HTTP server: Basic auth, then `git http-backend` as CGI.
function gitHttpServer(projectRoot: string): http.Server {
  const users: Record<string, { password: string; push: boolean }> = {
    reader: { password: READER_PASSWORD, push: false },
    writer: { password: WRITER_PASSWORD, push: true },
    'x-access-token': { password: PUBLISHER_TOKEN, push: true },
  };
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const pushing = url.searchParams.get('service') === 'git-receive-pack' || url.pathname.endsWith('/git-receive-pack');
    const header = req.headers.authorization ?? '';
    const [user, password] = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8').split(/:(.*)/s) : [];
    const account = user !== undefined ? users[user] : undefined;
    if (!account || account.password !== password) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="zodex-test"' });
      return res.end('authentication required\n');
    }
    if (pushing && !account.push) {
      res.writeHead(403);
      return res.end('this account may not push\n');
    }
    serveGitCgi(req, res, { projectRoot, remoteUser: user! });
  });
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function credentialWorld(owner: Owner): Promise<CredentialWorld> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-credentials-')));
  const checkout = owner.uid === process.getuid?.() ? REPO_ROOT : path.join(root, 'checkout');
  if (checkout !== REPO_ROOT) fs.mkdirSync(checkout);
  fs.chmodSync(root, 0o755);
  const children: ChildProcess[] = [];
  const servers: http.Server[] = [];
  const cleanups: Array<() => void> = [];
  try {
    // The remote, seeded with one commit on main.
    const remote = path.join(root, 'remote.git');
    const git = (cwd: string, ...args: string[]) =>
      run('git', ['-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd });
    git(root, 'init', '--bare', '-q', remote);
    git(remote, 'config', 'http.receivepack', 'true');
    const seed = path.join(root, 'seed');
    git(root, 'clone', '-q', remote, seed);
    fs.writeFileSync(path.join(seed, 'README.md'), '# widgets\n');
    git(seed, 'add', '.');
    git(seed, 'commit', '-q', '-m', 'initial');
    git(seed, 'push', '-q', 'origin', 'HEAD:main');
    fs.rmSync(seed, { recursive: true, force: true });
    chownTree(remote, { uid: 0, gid: 0 });

    const httpServer = gitHttpServer(root);
    servers.push(httpServer);
    const httpPort = await listen(httpServer);
    const httpUrl = `http://127.0.0.1:${httpPort}/remote.git`;
    const origin = `http://127.0.0.1:${httpPort}`;

    // The fake GitHub REST API the publishers open pull requests on.
    const { server: api, pulls } = fakeGitHub();
    servers.push(api);
    const apiBase = `http://127.0.0.1:${await listen(api)}`;

    // The user's home and its stores.
    const home = path.join(root, 'home');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.join(home, '.config', 'gh'), { recursive: true });
    fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    const writerUrl = `http://writer:${WRITER_PASSWORD}@127.0.0.1:${httpPort}`;
    fs.writeFileSync(path.join(home, '.git-credentials'), `${writerUrl}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(home, '.config', 'git', 'credentials'), `${writerUrl}\n`, { mode: 0o600 });
    fs.writeFileSync(path.join(home, '.netrc'), `machine 127.0.0.1 login writer password ${WRITER_PASSWORD}\n`, { mode: 0o600 });
    fs.writeFileSync(
      path.join(home, '.config', 'gh', 'hosts.yml'),
      `github.com:\n    user: writer\n    oauth_token: ${WRITER_PASSWORD}\n    git_protocol: https\n`,
      { mode: 0o600 },
    );
    fs.writeFileSync(
      path.join(home, '.gitconfig'),
      '[user]\n\tname = Agent\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n[credential]\n\thelper = store\n',
    );
    fs.writeFileSync(path.join(home, '.bashrc'), `# the user's rc file\nexport PATH="$HOME/bin:$PATH"\nexport GH_TOKEN=${WRITER_PASSWORD}\nalias ll='ls -l'\n`);
    fs.writeFileSync(path.join(home, '.profile'), '[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n');
    const readCredentials = path.join(root, 'read-credentials');
    fs.writeFileSync(readCredentials, `http://reader:${READER_PASSWORD}@127.0.0.1:${httpPort}\n`, { mode: 0o600 });
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'file-key', '-f', path.join(home, '.ssh', 'id_ed25519')]);
    const agentKey = path.join(root, 'agent-key');
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'agent-key', '-f', agentKey]);
    chownTree(home, owner);
    fs.chownSync(readCredentials, owner.uid, owner.gid);
    fs.chownSync(agentKey, owner.uid, owner.gid);

    // sshd: root logs in with either key and runs git there.
    const sshd = path.join(root, 'sshd');
    fs.mkdirSync(sshd, { mode: 0o700 });
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(sshd, 'host_key')]);
    fs.writeFileSync(
      path.join(sshd, 'authorized_keys'),
      `${fs.readFileSync(path.join(home, '.ssh', 'id_ed25519.pub'), 'utf8')}${fs.readFileSync(`${agentKey}.pub`, 'utf8')}`,
      { mode: 0o600 },
    );
    const sshPort = await freePort();
    fs.writeFileSync(
      path.join(sshd, 'config'),
      [
        `Port ${sshPort}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${path.join(sshd, 'host_key')}`,
        `AuthorizedKeysFile ${path.join(sshd, 'authorized_keys')}`,
        `PidFile ${path.join(sshd, 'pid')}`,
        'PermitRootLogin prohibit-password',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'StrictModes no',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // sshd's privilege separation folder
    const sshdProcess = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', path.join(sshd, 'config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(sshdProcess);
    await waitFor(() => {
      try {
        execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${sshPort}`], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    }, 'sshd to listen');
    const sshUrl = `ssh://root@127.0.0.1:${sshPort}${remote}`;

    // The user's ssh-agent, holding the agent key only.
    const agentSocket = path.join(root, 'agent', 'agent.sock');
    fs.mkdirSync(path.dirname(agentSocket), { mode: 0o700 });
    fs.chownSync(path.dirname(agentSocket), owner.uid, owner.gid);
    const agentEnv = { ...process.env, HOME: home, SSH_AUTH_SOCK: agentSocket };
    const agent = spawn(
      owner.uid === process.getuid?.() ? 'ssh-agent' : 'setpriv',
      [...(owner.uid === process.getuid?.() ? [] : [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, '--clear-groups', 'ssh-agent']), '-D', '-a', agentSocket],
      { env: agentEnv, stdio: 'ignore' },
    );
    children.push(agent);
    await waitFor(() => fs.existsSync(agentSocket), 'ssh-agent');
    run('ssh-add', ['-q', agentKey], { env: agentEnv, owner });
    fs.rmSync(agentKey);
    fs.rmSync(`${agentKey}.pub`);

    // git's credential-cache daemon of the user, holding the writer's credential.
    const userEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
    run('git', ['-c', 'credential.helper=cache --timeout=900', 'credential', 'approve'], {
      env: userEnv,
      owner,
      input: `protocol=http\nhost=127.0.0.1:${httpPort}\nusername=writer\npassword=${WRITER_PASSWORD}\n\n`,
    });
    cleanups.push(() => {
      try {
        run('git', ['credential-cache', 'exit'], { env: userEnv, owner });
      } catch {
        // gone already
      }
    });

    // zodex-agent on PATH, and one publisher per mode.
    const bin = path.join(home, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'zodex-agent'), `#!/bin/sh\nexec '${process.execPath}' '${path.join(checkout, 'dist/cli/zodex-agent.js')}' "$@"\n`, {
      mode: 0o755,
    });
    chownTree(bin, owner);
    // One publisher per mode that publishes; a read-only zodexd sits beside the publish-pr one, as
    // on a machine where the operator runs one publisher for the sessions that may publish.
    const publishers = new Map<WriteModeName, string>();
    for (const mode of ['publish-pr', 'direct'] as const) {
      const dir = path.join(root, `publisher-${mode}`);
      fs.mkdirSync(path.join(dir, 'run'), { recursive: true, mode: 0o700 });
      // publish-pr's publisher reads its token from a file, direct's from its environment.
      const tokenFile = path.join(dir, 'token');
      if (mode === 'publish-pr') fs.writeFileSync(tokenFile, `${PUBLISHER_TOKEN}\n`, { mode: 0o600 });
      fs.writeFileSync(
        path.join(dir, 'publisher.json'),
        JSON.stringify({ allowedRemotes: [{ url: httpUrl, repo: 'acme/widgets' }], apiBase, protectedBranches: ['main'] }),
      );
      chownTree(dir, owner);
      const socket = path.join(dir, 'run', 'publisher.sock');
      const args = [
        'publisher',
        '--write-mode',
        mode,
        '--socket',
        socket,
        '--state-dir',
        path.join(dir, 'state'),
        '--allow-same-user-token-readable',
        ...(mode === 'publish-pr' ? ['--token-file', tokenFile] : []),
        '--config',
        path.join(dir, 'publisher.json'),
      ];
      // As another user: the checkout bound on `checkout` in a mount namespace of its own.
      const asOwner = `mount --bind "$1" "$2" && shift 2 && exec setpriv --reuid=${owner.uid} --regid=${owner.gid} --clear-groups "$@"`;
      const [cmd, argv] =
        owner.uid === process.getuid?.()
          ? [process.execPath, [path.join(REPO_ROOT, 'dist/cli/zodex.js'), ...args]]
          : [
              'unshare',
              [
                '-m',
                '--propagation',
                'private',
                'sh',
                '-c',
                asOwner,
                'sh',
                REPO_ROOT,
                checkout,
                process.execPath,
                path.join(checkout, 'dist/cli/zodex.js'),
                ...args,
              ],
            ];
      const daemon = spawn(cmd as string, argv as string[], {
        cwd: '/',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...(mode === 'direct' ? { ZODEX_PUBLISHER_TOKEN: PUBLISHER_TOKEN } : {}) },
        stdio: 'ignore',
      });
      children.push(daemon);
      await waitFor(() => fs.existsSync(socket), `the ${mode} publisher`);
      publishers.set(mode, socket);
    }

    const socketOf = (mode: WriteModeName) => publishers.get(mode === 'read-only' ? 'publish-pr' : mode)!;
    const env = (mode: WriteModeName): Record<string, string> => ({
      HOME: home,
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      SHELL: '/bin/bash',
      SSH_AUTH_SOCK: agentSocket,
      GH_TOKEN: WRITER_PASSWORD,
      GITHUB_TOKEN: WRITER_PASSWORD,
      ZODEX_PUBLISHER_SOCKET: socketOf(mode),
      XDG_RUNTIME_DIR: '',
    });

    const routeScript = (mode: WriteModeName): string => {
      const branch = (route: Route) => `${mode}-${route}`;
      const http = (user: string, secret: string) => `http://${user}:${secret}@127.0.0.1:${httpPort}/remote.git`;
      const ssh = 'ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes';
      const token = socketOf('publish-pr').replace(/\/run\/publisher\.sock$/, '/token'); // the one token file
      const pushAs = (route: Route, how: string) => `(${how}) >/dev/null 2>&1 && echo "route ${route}: pushed" || echo "route ${route}: refused"`;
      const push = (route: Route, remoteUrl = httpUrl, extra = '') => `git ${extra} push -q ${remoteUrl} HEAD:refs/heads/${branch(route)}`;
      // Work folders in the world's home (removed with the world), not in the system's temp folder.
      return [
        'set +e',
        'export GIT_TERMINAL_PROMPT=0',
        `cd "$(mktemp -d -p "$HOME")" && git init -q w && cd w && git commit -q --allow-empty -m work`,
        pushAs('store', push('store', httpUrl, '-c credential.helper= -c credential.helper=store')),
        pushAs('xdg-store', push('xdg-store', httpUrl, `-c credential.helper= -c "credential.helper=store --file=$HOME/.config/git/credentials"`)),
        pushAs('cache', push('cache', httpUrl, '-c credential.helper= -c "credential.helper=cache --timeout=900"')),
        pushAs('netrc', push('netrc', httpUrl, '-c credential.helper=')),
        pushAs('env', `T="\${GH_TOKEN:-$GITHUB_TOKEN}"; [ -n "$T" ] && ${push('env', http('writer', '$T'), '-c credential.helper=')}`),
        pushAs(
          'login-rc',
          `T=$(bash -lc 'echo "$GH_TOKEN"' 2>/dev/null); [ -n "$T" ] || T=$(sed -n 's/.*GH_TOKEN=//p' ~/.bashrc ~/.profile 2>/dev/null | head -1); [ -n "$T" ] && ${push('login-rc', http('writer', '$T'), '-c credential.helper=')}`,
        ),
        pushAs(
          'proc-environ',
          `T=; for p in $(pgrep -f zodexd); do T=$(tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^GITHUB_TOKEN=//p' | head -1); [ -n "$T" ] && break; done; [ -n "$T" ] && ${push('proc-environ', http('writer', '$T'), '-c credential.helper=')}`,
        ),
        pushAs(
          'gh-hosts',
          `T=$(sed -n 's/.*oauth_token: //p' ~/.config/gh/hosts.yml 2>/dev/null); [ -n "$T" ] && ${push('gh-hosts', http('writer', '$T'), '-c credential.helper=')}`,
        ),
        pushAs(
          'proc-root',
          `T=; for p in $(pgrep -u "$(id -u)"); do T=$(sed -n 's|^http://writer:\\([^@]*\\)@.*|\\1|p' /proc/$p/root$HOME/.git-credentials 2>/dev/null | head -1); [ -n "$T" ] && break; done; [ -n "$T" ] && ${push('proc-root', http('writer', '$T'), '-c credential.helper=')}`,
        ),
        pushAs('ssh-key', `GIT_SSH_COMMAND="${ssh} -o IdentitiesOnly=yes -o IdentityAgent=none -i $HOME/.ssh/id_ed25519" ${push('ssh-key', sshUrl)}`),
        pushAs('ssh-agent', `SSH_AUTH_SOCK='${agentSocket}' GIT_SSH_COMMAND="${ssh}" ${push('ssh-agent', sshUrl)}`),
        pushAs(
          'publisher-token',
          `T=$(cat '${token}' 2>/dev/null); [ -n "$T" ] && ${push('publisher-token', http('x-access-token', '$T'), '-c credential.helper=')}`,
        ),
        pushAs(
          'publisher-environ',
          `T=; for p in $(pgrep -f 'zodex.js publisher'); do T=$(tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | sed -n 's/^ZODEX_PUBLISHER_TOKEN=//p' | head -1); [ -n "$T" ] && break; done; [ -n "$T" ] && ${push('publisher-environ', http('x-access-token', '$T'), '-c credential.helper=')}`,
        ),
        // Through the publisher: a direct push (direct mode only), and the same request sent raw,
        // claiming direct mode whatever the session's mode is.
        `git remote add origin ${httpUrl} && git branch -q -m ${branch('publisher-push')}`,
        pushAs('publisher-push', 'zodex-agent github push'),
        `git branch -q -m ${branch('publisher-forged')}`,
        pushAs(
          'publisher-forged',
          `node -e 'const s=require("net").connect(process.argv[1]);s.on("error",()=>process.exit(1));s.write(JSON.stringify({version:1,id:"f",op:"push",repoPath:process.cwd(),branch:process.argv[2],commit:process.argv[3],writeMode:"direct"})+"\\n");let a="";s.on("data",d=>a+=d);s.on("end",()=>process.exit(JSON.parse(a).ok?0:1))' "$ZODEX_PUBLISHER_SOCKET" ${branch('publisher-forged')} "$(git rev-parse HEAD)"`,
        ),
        // A read-only credential can read (the clone works in every mode here) but never push.
        pushAs('read-credential', `git clone -q ${httpUrl} ../rc && cd ../rc && git commit -q --allow-empty -m rc && ${push('read-credential', httpUrl, '')}`),
        // The one governed route: a pull request through the publisher.
        `cd "$(mktemp -d -p "$HOME")" && git clone -q ${httpUrl} pr 2>/dev/null; cd pr 2>/dev/null && git switch -q -c ${branch('publish-pr')} && git commit -q --allow-empty -m pr`,
        pushAs('publish-pr', 'zodex-agent github publish-pr --title pr --base main'),
        // What the stores look like from here.
        'cat ~/.git-credentials ~/.config/git/credentials ~/.netrc ~/.config/gh/hosts.yml ~/.ssh/id_ed25519 2>&1 | head -c 400; echo',
        'bash -lc "env" 2>&1 | grep -i token',
        'echo routes done',
      ].join('\n');
    };

    return {
      root,
      home,
      remote,
      httpUrl,
      sshUrl,
      readCredentials,
      checkout,
      publisherSocket: socketOf,
      env,
      secrets: [WRITER_PASSWORD, PUBLISHER_TOKEN, 'PRIVATE KEY'],
      routeScript,
      branches: () => run('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads'], { cwd: remote }).split('\n').filter(Boolean),
      pulls,
      async close() {
        for (const cleanup of cleanups) cleanup();
        for (const child of children) child.kill('SIGTERM');
        await Promise.all(
          children.map(
            (child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve))),
          ),
        );
        for (const server of servers) server.close();
        fs.rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const cleanup of cleanups) cleanup();
    for (const child of children) child.kill('SIGKILL');
    for (const server of servers) server.close();
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

// The branches each mode's routes may leave on the remote: every route in direct mode (the control:
// each works as the user) but one, only the pull request in publish-pr, nothing in read-only.
// The one closed in direct mode too: the publisher erases its token from its environment once read
// (docs/secrets.md), so /proc/<publisher>/environ never holds it.
export function expectedBranches(mode: WriteModeName): string[] {
  if (mode === 'read-only') return [];
  if (mode === 'publish-pr') return [`${mode}-publish-pr`];
  // read-credential too: the user's own credential pushes
  return ALL_ROUTES.filter((route) => route !== 'publisher-environ').map((route) => `${mode}-${route}`);
}
