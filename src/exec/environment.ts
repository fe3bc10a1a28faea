// The environment commands run in, and the shell that runs them.
// Local mode: the user's login shell ($SHELL, else /bin/bash, else /bin/sh) is asked once, at
// start, for its environment (`$SHELL -lc 'env -0'`, bounded by a timeout); every command then
// runs as `$SHELL -c CMD` in that captured environment, so rc files are paid once, not per call.
// Sprite mode: `bash -c` (or `sh -c`) in the server's own environment.
// The engine knows no product: which variables a command must not see and which it must get
// (the HTTP token, the publisher's secrets and write mode) arrive as an EnvironmentPolicy.

import { execFile } from 'node:child_process';
import fs from 'node:fs';

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
// server), then the ones set, after COMMAND_ENV_OVERRIDES.
export interface EnvironmentPolicy {
  remove: readonly string[];
  set: Readonly<Record<string, string>>;
}

const MARK = '__ZODEX_ENV_BEGIN__';
const CAPTURE_TIMEOUT_MS = 5_000;

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function pickShell(mode: 'local' | 'sprite', env: NodeJS.ProcessEnv = process.env): string {
  const candidates = mode === 'local' ? [env.SHELL, '/bin/bash', '/bin/sh'] : ['/bin/bash', '/usr/bin/bash', '/bin/sh'];
  for (const candidate of candidates) if (candidate && candidate.startsWith('/') && isExecutable(candidate)) return candidate;
  return '/bin/sh';
}

export function commandEnv(base: NodeJS.ProcessEnv | Record<string, string>, policy: EnvironmentPolicy): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  for (const key of policy.remove) delete env[key];
  Object.assign(env, COMMAND_ENV_OVERRIDES, policy.set);
  if (!env.LANG && !env.LC_ALL) env.LANG = 'C.UTF-8';
  return env;
}

// Runs the login shell once and parses its environment. Falls back to the server's own
// environment (and says why) when the shell fails, hangs or prints nothing usable.
export function captureLoginEnvironment(shell: string, policy: EnvironmentPolicy): Promise<ShellSetup> {
  return new Promise((resolve) => {
    const fallback = (why: string) =>
      resolve({ shell, env: commandEnv(process.env, policy), source: `server environment (${why})` });
    const script = `printf '\\0${MARK}\\0'; env -0`;
    const base = commandEnv(process.env, policy);
    execFile(
      shell,
      ['-lc', script],
      { env: base, timeout: CAPTURE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'buffer' },
      (error, stdout) => {
        if (error) return fallback(`${shell} -lc failed: ${error.message.split('\n')[0]}`);
        const text = stdout.toString('utf8');
        const at = text.indexOf(`\0${MARK}\0`);
        if (at === -1) return fallback('no environment in the login shell output');
        const env: Record<string, string> = {};
        for (const entry of text.slice(at + MARK.length + 2).split('\0')) {
          const eq = entry.indexOf('=');
          if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
        if (!env.PATH) return fallback('the login shell environment has no PATH');
        for (const key of ['SHLVL', '_', 'OLDPWD', 'PWD']) delete env[key];
        resolve({ shell, env: commandEnv(env, policy), source: `${shell} -l` });
      },
    );
  });
}

export function serverEnvironment(shell: string, policy: EnvironmentPolicy): ShellSetup {
  return { shell, env: commandEnv(process.env, policy), source: 'server environment' };
}
