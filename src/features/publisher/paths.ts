// Where the publisher listens, and the environment names that carry its authority.
// zodexd imports this file too: it puts PUBLISHER_SOCKET_ENV and AGENT_ID_ENV into every
// exec_command session and removes PUBLISHER_SECRET_ENV from it. The socket lives in a folder
// only its user can enter (0700, ours, not a symlink); the socket itself is 0600.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mkdirPrivate, privateFolderProblem } from '../../fsutil.js';
import { PublisherError } from './errors.js';

// Set by zodexd in exec_command sessions; read by zodex-agent (`--socket PATH` wins).
export const PUBLISHER_SOCKET_ENV = 'ZODEX_PUBLISHER_SOCKET';
export const AGENT_ID_ENV = 'ZODEX_AGENT_ID';

// The daemon's write credential may come from this variable (or from --token-file). Every
// name here must be removed from the environment of anything an agent can run: zodexd scrubs
// them from exec_command sessions, and the daemon deletes them from its own process.env as
// soon as it has read the token so that no git child inherits them.
// GITHUB_TOKEN_ZODEX_PUBLISHER is not read by anything; it stays listed because zodexd already
// scrubs it and an operator may have set it following older notes.
export const PUBLISHER_TOKEN_ENV = 'ZODEX_PUBLISHER_TOKEN';
export const PUBLISHER_SECRET_ENV: readonly string[] = [PUBLISHER_TOKEN_ENV, 'GITHUB_TOKEN_ZODEX_PUBLISHER'];

// What every command of agent `agentId` gets (the server's commandEnv seam): who started it, and
// where the publisher listens; zodex-agent reads both.
export function agentCommandEnv(agentId: string): Record<string, string> {
  return { [AGENT_ID_ENV]: agentId, [PUBLISHER_SOCKET_ENV]: process.env[PUBLISHER_SOCKET_ENV] ?? defaultPublisherSocket() };
}

const SOCKET_NAME = 'publisher.sock';

// $XDG_RUNTIME_DIR/zodex/publisher.sock, else /tmp/zodex-<uid>/publisher/publisher.sock.
export function defaultPublisherSocket(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, 'zodex', SOCKET_NAME);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `zodex-${uid}`, 'publisher', SOCKET_NAME);
}

function unsafe(message: string): PublisherError {
  return new PublisherError('UNSAFE_SOCKET_FOLDER', message);
}

// Checks that dir is a real directory of ours. strict: nobody else may even enter it (0700);
// otherwise nobody else may write into it (the /tmp/zodex-<uid> parent, shared with spill files).
export function checkPrivateFolder(dir: string, strict: boolean): void {
  const problem = privateFolderProblem(dir, strict, 'the publisher socket');
  if (problem) throw unsafe(`socket folder ${dir} ${problem}; pass --socket in a folder of your own if this one cannot be fixed`);
}

function makeSocketFolder(dir: string, group?: number): void {
  try {
    if (mkdirPrivate(dir, group === undefined ? 0o700 : 0o710) && group !== undefined) fs.chownSync(dir, -1, group);
  } catch (error) {
    throw unsafe(`cannot create socket folder ${dir} (${(error as NodeJS.ErrnoException).code}); create it with mode 0700 or pass another --socket`);
  }
}

// A socket folder that members of `group` may traverse (0710, that group) and nobody else enter.
function checkGroupFolder(dir: string, group: number): void {
  const problem = privateFolderProblem(dir, false, 'the publisher socket');
  if (problem) throw unsafe(`socket folder ${dir} ${problem}; pass --socket in a folder of your own if this one cannot be fixed`);
  const stat = fs.statSync(dir);
  if ((stat.mode & 0o077) !== 0o010 || stat.gid !== group) {
    const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
    throw unsafe(
      `socket folder ${dir} has mode ${mode} and group ${stat.gid}; with --socket-group it must be 0710 and group ${group}: run \`chgrp ${group} ${dir} && chmod 710 ${dir}\``,
    );
  }
}

// Makes the socket's folder (0700; 0710 of `group` with --socket-group) if missing and checks it, and for the default
// /tmp/zodex-<uid>/publisher layout also the /tmp/zodex-<uid> level above it. Existing folders
// are never chmod-ed: a folder with the wrong mode is refused, so the operator notices.
export function ensureSocketFolder(socketPath: string, env: NodeJS.ProcessEnv = process.env, group?: number): string {
  if (!path.isAbsolute(socketPath)) throw unsafe(`--socket must be an absolute path; got ${JSON.stringify(socketPath)}`);
  const folder = path.dirname(socketPath);
  const isDefaultTmpLayout = socketPath === defaultPublisherSocket({ ...env, XDG_RUNTIME_DIR: undefined });
  if (isDefaultTmpLayout) {
    const parent = path.dirname(folder);
    makeSocketFolder(parent, group);
    if (group === undefined) checkPrivateFolder(parent, false);
    else checkGroupFolder(parent, group);
  }
  makeSocketFolder(folder, group);
  if (group === undefined) checkPrivateFolder(folder, true);
  else checkGroupFolder(folder, group);
  return folder;
}
