// The environment commands run in, and the shell that runs them.
// Local mode: the user's login shell (the one their passwd entry names, as login(1) and sshd
// start; $SHELL only when that entry names none usable, then /bin/bash, /bin/sh) is asked once, at
// start, for its environment (`SHELL -lc 'env -0'`, bounded by a timeout); every command then
// runs as `SHELL -c CMD` in that captured environment, so rc files are paid once, not per call.
// Sprite mode: `bash -c` (or `sh -c`) in the server's own environment. --shell overrides both.
// The engine knows no product: which variables a command must not see and which it must get
// (the HTTP token, the publisher's secrets and write mode) arrive as an EnvironmentPolicy.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export interface ShellSetup {
  shell: string;
  env: Record<string, string>;
  // Where the environment came from, for the startup log.
  source: string;
}

// Settings every command gets, whatever the captured environment says: no pagers waiting for
// a key, no colour asked for (escape codes are stripped anyway), a plain terminal type.
export const COMMAND_ENV_OVERRIDES: Readonly<Record<string, string>> = {
  TERM: 'dumb',
  NO_COLOR: '1',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
  SYSTEMD_PAGER: '',
  ZODEX: '1',
};

// The caller's rule for every command's environment: the variables removed (secrets of the
// server), then the ones set, after COMMAND_ENV_OVERRIDES. `seen` is shown each environment
// before anything is removed (the caller learns the token values the login shell exported).
export interface EnvironmentPolicy {
  remove: readonly string[];
  set: Readonly<Record<string, string>>;
  seen?: (env: Readonly<Record<string, string>>) => void;
}

const MARK = '__ZODEX_ENV_BEGIN__';
const CAPTURE_TIMEOUT_MS = 5_000;
// pyenv waits 60 s for its rehash lock; a shell still running 2 minutes in is hung, not slow.
const CAPTURE_GRACE_MS = 120_000;

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// A shell that lets nobody log in (an account's nologin or false) cannot run commands.
const NO_LOGIN = /\/(nologin|false)$/;

// The shell commands run in, and where it came from (for the start log). Local mode: the passwd
// entry's login shell, then $SHELL, /bin/bash, /bin/sh; Sprite mode: bash, else sh.
// passwdShell: the passwd entry's shell (tests pass their own).
export function chooseShell(
  mode: 'local' | 'sprite',
  env: NodeJS.ProcessEnv = process.env,
  passwdShell: () => string | undefined = userShell,
): { shell: string; from: string } {
  const candidates: [string | undefined, string][] =
    mode === 'local'
      ? [
          [passwdShell(), 'the login shell of the passwd entry'],
          [env.SHELL, '$SHELL: the passwd entry names no usable login shell'],
          ['/bin/bash', 'neither the passwd entry nor $SHELL names a usable shell'],
        ]
      : [
          ['/bin/bash', 'Sprite mode'],
          ['/usr/bin/bash', 'Sprite mode'],
        ];
  for (const [candidate, from] of candidates) {
    if (candidate && candidate.startsWith('/') && !NO_LOGIN.test(candidate) && isExecutable(candidate)) return { shell: candidate, from };
  }
  return { shell: '/bin/sh', from: 'no bash found' };
}

export function pickShell(mode: 'local' | 'sprite', env: NodeJS.ProcessEnv = process.env): string {
  return chooseShell(mode, env).shell;
}

// The shell of this process's user as the passwd entry (getpwuid) names it; undefined if none.
function userShell(): string | undefined {
  try {
    return os.userInfo().shell ?? undefined;
  } catch {
    return undefined;
  }
}

export function commandEnv(base: NodeJS.ProcessEnv | Record<string, string>, policy: EnvironmentPolicy): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  policy.seen?.(env);
  for (const key of policy.remove) delete env[key];
  Object.assign(env, COMMAND_ENV_OVERRIDES, policy.set);
  if (!env.LANG && !env.LC_ALL) env.LANG = 'C.UTF-8';
  return env;
}

export interface CaptureOptions {
  // How long the first command may wait for the login shell before the server environment is used.
  timeoutMs?: number;
  // The login shell runs as `...runner shell -lc ...` (zodex-spawn --exec: confined as commands are).
  runner?: readonly string[];
  // How long a shell past timeoutMs may go on before it is sent SIGTERM (see below).
  graceMs?: number;
  log?: (message: string) => void;
  // Called with the login shell's environment as it printed it (before the policy), before
  // `setup` resolves: for the caller's own use of it (the secret values it holds).
  onCapture?: (env: Readonly<Record<string, string>>) => void;
}

export interface LoginCapture {
  setup: Promise<ShellSetup>;
  // Ends a shell still running (SIGTERM to the shell alone); called once the server stops.
  stop(): void;
}

const MAX_CAPTURE_BYTES = 16 * 1024 * 1024;

// Runs the login shell once and parses its environment. Falls back to the server's own
// environment (and says why) when the shell fails, hangs or prints nothing usable.
// A slow shell is never killed mid-rc-file: rc files take locks (pyenv's rehash holds
// ~/.pyenv/shims/.pyenv-shim while it runs, and a SIGKILL leaves it behind, so that every later
// login shell of the user waits 60 s for it). So the shell leads its own session (a kill of
// zodexd's process group does not reach it), a timeout only stops waiting for it, and only past
// the grace period, or when the server stops, is the shell itself (not its group) sent SIGTERM:
// what it started finishes on its own and releases what it holds.
export function captureLoginEnvironment(shell: string, policy: EnvironmentPolicy, options: CaptureOptions = {}): LoginCapture {
  const timeoutMs = options.timeoutMs ?? CAPTURE_TIMEOUT_MS;
  const graceMs = options.graceMs ?? CAPTURE_GRACE_MS;
  const started = Date.now();
  const script = `printf '\\0${MARK}\\0'; env -0`;
  let child: ChildProcess | undefined;
  // Only a child node has not reaped yet: never a later process that got its pid.
  const end = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  let grace: NodeJS.Timeout | undefined;
  const setup = new Promise<ShellSetup>((resolve) => {
    let settled = false;
    const settle = (result: ShellSetup) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    // SHELL names the login shell, as login(1) sets it, whatever zodexd was started with.
    const serverEnv = { ...commandEnv(process.env, policy), SHELL: shell };
    const fallback = (why: string) => settle({ shell, env: serverEnv, source: `server environment (${why})` });
    try {
      const [file = shell, ...prefix] = [...(options.runner ?? []), shell];
      child = spawn(file, [...prefix, '-lc', script], { env: serverEnv, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    } catch (error) {
      return fallback(`${shell} -lc failed: ${(error as Error).message.split('\n')[0]}`);
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    child.stdout!.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= MAX_CAPTURE_BYTES) chunks.push(chunk); // past it, read on and drop: the shell must not block
    });
    const timer = setTimeout(() => {
      fallback(`${shell} -lc gave no environment within ${timeoutMs} ms; it may go on for ${Math.round(graceMs / 1000)} s more, unkilled`);
      grace = setTimeout(end, graceMs);
      grace.unref();
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fallback(`${shell} -lc failed: ${error.message.split('\n')[0]}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      if (settled) {
        options.log?.(`login shell: ${shell} -l ended after ${Date.now() - started} ms, past the ${timeoutMs} ms wait; commands keep the server environment`);
        return;
      }
      if (code !== 0) return fallback(`${shell} -lc failed: ${signal ? `killed by ${signal}` : `exit code ${code}`}`);
      if (bytes > MAX_CAPTURE_BYTES) return fallback(`the login shell printed more than ${MAX_CAPTURE_BYTES} bytes`);
      const captured = parseCapture(shell, Buffer.concat(chunks).toString('utf8'), policy);
      if (!captured) return fallback('no usable environment in the login shell output');
      options.onCapture?.(captured.printed);
      settle(captured.setup);
    });
    // A shell past its timeout must not keep zodexd alive.
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
  });
  return { setup, stop: end };
}

// The environment after the marker (as printed, and as commands get it), or undefined when there
// is none or it has no PATH.
function parseCapture(shell: string, text: string, policy: EnvironmentPolicy): { setup: ShellSetup; printed: Record<string, string> } | undefined {
  const at = text.indexOf(`\0${MARK}\0`);
  if (at === -1) return undefined;
  const env: Record<string, string> = {};
  for (const entry of text.slice(at + MARK.length + 2).split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  if (!env.PATH) return undefined;
  const printed = { ...env };
  for (const key of ['SHLVL', '_', 'OLDPWD', 'PWD']) delete env[key];
  return { setup: { shell, env: commandEnv(env, policy), source: `${shell} -l` }, printed };
}

export function serverEnvironment(shell: string, policy: EnvironmentPolicy): ShellSetup {
  return { shell, env: commandEnv(process.env, policy), source: 'server environment' };
}
