// The git the daemon runs, in two trust levels.
// Checkout commands (inspectCheckout) run in the agent's work tree, whose config the agent
// controls: they get no credential, hooks and fsmonitor are switched off, and nothing is written.
// Staging commands run in the daemon's own bare repository: the commit is fetched there from the
// checkout, and only from there is it pushed, to the URL the operator allowed, with the header
// in that one child's environment. So no hook, `insteadOf` or helper of the agent's ever runs
// next to the credential, and argv never holds it.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { mkdirpSync } from '../../fsutil.js';
import path from 'node:path';
import { PublisherError } from './errors.js';
import { PUBLISHER_SECRET_ENV } from './paths.js';

export const GIT_LOCAL_TIMEOUT_MS = 60_000; // status/rev-parse in a big checkout
export const GIT_NETWORK_TIMEOUT_MS = 300_000; // a push of a large history over a slow link
const MAX_GIT_OUTPUT_BYTES = 16 * 1024 * 1024;

// Of the daemon's GIT_* variables, only these reach its git children; the others (GIT_DIR,
// GIT_CONFIG_*, GIT_TRACE*, ...) could redirect or log what git does.
const KEPT_GIT_VARIABLES = new Set(['GIT_SSL_CAINFO', 'GIT_SSL_CAPATH', 'GIT_EXEC_PATH']);

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitRunner {
  (args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<GitResult>;
}

// The environment every git child starts from: the daemon's, minus publisher secrets and GIT_*
// variables, never prompting for anything.
export function gitBaseEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (key.startsWith('GIT_') && !KEPT_GIT_VARIABLES.has(key)) continue;
    env[key] = value;
  }
  for (const name of PUBLISHER_SECRET_ENV) delete env[name];
  delete env.SSH_ASKPASS;
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_ASKPASS = 'true'; // answers every credential prompt with an empty line
  env.LC_ALL = 'C';
  return env;
}

// `name` found on PATH once, at start: a git put later in a folder ahead on PATH (~/bin, which an
// agent of the daemon's own user could write) is never the one run next to the token.
function onPath(name: string, searchPath: string | undefined): string {
  if (name.includes('/')) return name;
  for (const dir of (searchPath ?? '').split(':')) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return name;
}

export function createGitRunner(gitBinary = 'git', parentEnv: NodeJS.ProcessEnv = process.env): GitRunner {
  const base = gitBaseEnv(parentEnv);
  const git = onPath(gitBinary, parentEnv.PATH);
  return (args, options) =>
    new Promise((resolve) => {
      execFile(
        git,
        args,
        {
          cwd: options.cwd,
          env: { ...base, ...options.env },
          timeout: options.timeoutMs ?? GIT_LOCAL_TIMEOUT_MS,
          maxBuffer: MAX_GIT_OUTPUT_BYTES,
          encoding: 'utf8',
          killSignal: 'SIGKILL',
        },
        (error, stdout, stderr) => {
          if (!error) return resolve({ code: 0, stdout, stderr });
          const code = typeof error.code === 'number' ? error.code : -1;
          const why = error.killed ? `\ngit was stopped after ${options.timeoutMs ?? GIT_LOCAL_TIMEOUT_MS} ms` : '';
          const spawnProblem = typeof error.code === 'string' ? `\ncannot run ${git}: ${error.code}` : '';
          resolve({ code, stdout, stderr: `${stderr}${why}${spawnProblem}` });
        },
      );
    });
}

// Switches that keep checkout commands from running the agent's code or writing its files.
const CHECKOUT_FLAGS = ['--no-pager', '--no-optional-locks', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null'];

export interface CheckoutState {
  toplevel: string;
  branch: string;
  head: string;
  dirty: string[];
  remoteUrl: string;
}

function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).pop() ?? '';
}

// Reads what the daemon needs from the checkout at repoPath, refusing a non-checkout, a
// detached or unborn HEAD and a missing remote. Dirtiness is reported, not judged, here.
export async function inspectCheckout(git: GitRunner, repoPath: string, remoteName: string): Promise<CheckoutState> {
  const inCheckout = (args: string[], cwd: string) => git([...CHECKOUT_FLAGS, ...args], { cwd });
  if (!path.isAbsolute(repoPath) || !fs.existsSync(repoPath)) {
    throw new PublisherError('NOT_A_GIT_CHECKOUT', `${repoPath} is not an existing absolute path; run zodex-agent inside your git checkout`);
  }
  const top = await inCheckout(['rev-parse', '--is-inside-work-tree', '--show-toplevel'], repoPath);
  const [inside, toplevel] = top.stdout.trim().split('\n');
  if (top.code !== 0 || inside !== 'true' || !toplevel) {
    throw new PublisherError(
      'NOT_A_GIT_CHECKOUT',
      `${repoPath} is not inside a git work tree (${lastLine(top.stderr) || 'not a work tree'}); run zodex-agent inside your checkout`,
    );
  }
  const ref = await inCheckout(['symbolic-ref', '-q', 'HEAD'], toplevel);
  const fullRef = ref.stdout.trim();
  if (ref.code !== 0 || !fullRef.startsWith('refs/heads/')) {
    throw new PublisherError('DETACHED_HEAD', `HEAD in ${toplevel} is detached; check out a branch first (git switch -c my-branch)`);
  }
  const branch = fullRef.slice('refs/heads/'.length);
  const head = await inCheckout(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], toplevel);
  if (head.code !== 0) {
    throw new PublisherError('NOT_A_GIT_CHECKOUT', `branch ${branch} in ${toplevel} has no commits yet; commit your work first`);
  }
  const status = await inCheckout(['status', '--porcelain=v1', '--untracked-files=all', '--ignore-submodules=none'], toplevel);
  if (status.code !== 0) {
    throw new PublisherError('NOT_A_GIT_CHECKOUT', `git status failed in ${toplevel}: ${lastLine(status.stderr)}`);
  }
  const remote = await inCheckout(['config', '--get', `remote.${remoteName}.url`], toplevel);
  const remoteUrl = remote.stdout.trim();
  if (remote.code !== 0 || !remoteUrl) {
    throw new PublisherError(
      'REMOTE_MISSING',
      `${toplevel} has no remote named ${remoteName}; add it (git remote add ${remoteName} URL) or pass --remote NAME`,
    );
  }
  return {
    toplevel,
    branch,
    head: head.stdout.trim(),
    dirty: status.stdout.split('\n').filter((line) => line.length > 0),
    remoteUrl,
  };
}

// The daemon's bare repository, where commits wait between the checkout and the remote.
export class StagingRepo {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly git: GitRunner,
    readonly dir: string,
  ) {}

  // No system or global config (the agent can write ~/.gitconfig too), no hooks.
  private run(args: string[], env: Record<string, string> = {}, timeoutMs = GIT_LOCAL_TIMEOUT_MS): Promise<GitResult> {
    return this.git(['-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: this.dir,
      env: { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...env },
      timeoutMs,
    });
  }

  ensure(): Promise<void> {
    this.ready ??= (async () => {
      mkdirpSync(this.dir, 0o700);
      if (fs.existsSync(path.join(this.dir, 'HEAD'))) return;
      const init = await this.run(['init', '--bare', '-q', '.']);
      if (init.code !== 0) throw new Error(`cannot create the staging repository ${this.dir}: ${lastLine(init.stderr)}`);
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  // Copies branch from the checkout into `ref` and returns the commit it names.
  async fetchBranch(checkoutDir: string, branch: string, ref: string): Promise<string> {
    const fetch = await this.run(['fetch', '--no-tags', '--no-write-fetch-head', '--quiet', checkoutDir, `+refs/heads/${branch}:${ref}`]);
    if (fetch.code !== 0) {
      throw new PublisherError('PUSH_FAILED', `the publisher cannot copy ${branch} from ${checkoutDir} (${lastLine(fetch.stderr)}); nothing was published`);
    }
    const sha = await this.run(['rev-parse', '--verify', ref]);
    return sha.stdout.trim();
  }

  // Forgets a request's ref; `gc --auto` keeps the object store from growing without bound (it
  // does nothing until there are thousands of loose objects, and keeps recent ones).
  async dropRef(ref: string): Promise<void> {
    await this.run(['update-ref', '-d', ref]);
    await this.run(['-c', 'gc.autoDetach=false', 'gc', '--auto', '--quiet']);
  }

  // The commit branch names on the remote, or undefined when it has no such branch.
  async remoteBranch(pushUrl: string, branch: string, authEnv: Record<string, string>): Promise<GitResult & { sha: string | undefined }> {
    const result = await this.run(['ls-remote', '--heads', pushUrl, `refs/heads/${branch}`], authEnv, GIT_NETWORK_TIMEOUT_MS);
    const line = result.stdout.split('\n').find((entry) => entry.split('\t')[1] === `refs/heads/${branch}`);
    return { ...result, sha: line?.split('\t')[0] };
  }

  // Never forced: a push that is not a fast-forward is rejected by the remote.
  push(pushUrl: string, sha: string, branch: string, authEnv: Record<string, string>): Promise<GitResult> {
    return this.run(['push', '--porcelain', '--no-verify', pushUrl, `${sha}:refs/heads/${branch}`], authEnv, GIT_NETWORK_TIMEOUT_MS);
  }

  // Undoes our push, only if the remote branch still holds our commit: deletes the branch, or
  // puts back the commit it held before.
  undoPush(pushUrl: string, branch: string, ourSha: string, previous: string | undefined, authEnv: Record<string, string>): Promise<GitResult> {
    const refspec = previous ? `${previous}:refs/heads/${branch}` : `:refs/heads/${branch}`;
    return this.run(
      ['push', '--porcelain', '--no-verify', `--force-with-lease=refs/heads/${branch}:${ourSha}`, pushUrl, refspec],
      authEnv,
      GIT_NETWORK_TIMEOUT_MS,
    );
  }
}

// Why a push failed: the remote branch has commits ours lacks (never forced, so rejected), the
// remote refused it (a hook, branch protection), or it was not reached at all.
export function pushFailureKind(result: GitResult): 'non-fast-forward' | 'refused' | 'unreached' {
  const text = `${result.stdout}\n${result.stderr}`;
  if (/\(non-fast-forward\)|\(fetch first\)|\[rejected\]/.test(text)) return 'non-fast-forward';
  if (/\[remote rejected\]|pre-receive hook declined|protected branch/i.test(text)) return 'refused';
  return 'unreached';
}

export function gitFailure(result: GitResult): string {
  const lines = `${result.stderr}\n${result.stdout}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && line !== 'Done' && !line.startsWith('To '));
  return lines.slice(-3).join(' | ') || `git exited ${result.code}`;
}
