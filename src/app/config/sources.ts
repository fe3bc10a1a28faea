// What zodexd and the zodex subcommands read from outside argv: the token (--auth-token-file,
// else ZODEX_AUTH_TOKEN) and the state directory (--state-dir, else ZODEX_STATE_DIR, else
// $XDG_STATE_HOME/zodex, else ~/.local/state/zodex). One definition for every command that takes them.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigUsageError } from './errors.js';

// Shorter tokens are refused: anything that can reach the listener could guess them.
export const MIN_TOKEN_CHARS = 16;

export function readToken(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigUsageError(`--auth-token-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code}); check the path`);
  }
  const token = text.trim();
  if (token.length < MIN_TOKEN_CHARS) {
    throw new ConfigUsageError(`--auth-token-file ${file} holds a token shorter than ${MIN_TOKEN_CHARS} characters; use e.g. \`openssl rand -hex 32\``);
  }
  return token;
}

// The token from --auth-token-file (when given) or ZODEX_AUTH_TOKEN; undefined when neither is set.
export function loadToken(file: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (file !== undefined) return readToken(file);
  if (!env.ZODEX_AUTH_TOKEN) return undefined;
  const token = env.ZODEX_AUTH_TOKEN.trim();
  if (token.length < MIN_TOKEN_CHARS)
    throw new ConfigUsageError(`ZODEX_AUTH_TOKEN is shorter than ${MIN_TOKEN_CHARS} characters; use e.g. \`openssl rand -hex 32\``);
  return token;
}

export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'zodex');
}

// --state-dir as given (resolved), else ZODEX_STATE_DIR (an image sets it to its volume), else the default.
export function resolveStateDir(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  if (flag === undefined) return env.ZODEX_STATE_DIR && path.isAbsolute(env.ZODEX_STATE_DIR) ? path.normalize(env.ZODEX_STATE_DIR) : defaultStateDir(env);
  if (flag.trim() === '') throw new ConfigUsageError('--state-dir needs a directory');
  return path.resolve(flag);
}
