// Where each zodexd's control socket lives: <stateDir>/run/<serverId>.sock. Derived from the state
// dir and the server id alone, so any process of this user finds a session's zodexd from its row in
// the store (sessions.server_id). The run folder must be a real directory of ours, 0700; the
// socket itself is 0600. A folder that is a symlink, foreign or open to others is refused.

import { mkdirPrivate, mkdirpSync, privateFolderProblem } from '../../fsutil.js';
import path from 'node:path';
import { ZodexError, type LiveboardErrorCode } from '../../errors.js';
import { MAX_SOCKET_PATH_BYTES } from '../../net/unix-socket.js';

export const CONTROL_FOLDER_NAME = 'run';
// Server ids come from the store ('z' + 12 hex); anything else could walk out of the folder.
const SERVER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

// Its codes (an unsafe run folder, a socket path too long, a bad server id) are registered in errors.ts.
export class LiveboardError extends ZodexError {
  constructor(
    override readonly code: LiveboardErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'LiveboardError';
  }
}

export function controlFolder(stateDir: string): string {
  return path.join(stateDir, CONTROL_FOLDER_NAME);
}

export function controlSocketPath(stateDir: string, serverId: string): string {
  if (!SERVER_ID_PATTERN.test(serverId)) throw new LiveboardError('BAD_SERVER_ID', `server id ${JSON.stringify(serverId)} is not a plain token`);
  const file = path.join(controlFolder(stateDir), `${serverId}.sock`);
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    throw new LiveboardError(
      'SOCKET_PATH_TOO_LONG',
      `control socket path ${file} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, the limit of a unix socket address; use a shorter --state-dir`,
    );
  }
  return file;
}

// Checks that `dir` is a directory of this user that nobody else may enter (mirrors the
// publisher's socket-folder rule, with this folder's own messages).
export function checkControlFolder(dir: string): void {
  const problem = privateFolderProblem(dir, true, 'its sockets');
  if (problem) throw new LiveboardError('UNSAFE_CONTROL_FOLDER', `control folder ${dir} ${problem}`);
}

// Creates <stateDir>/run (0700) when missing and checks it. An existing folder is never chmod-ed:
// a wrong mode is refused so that the operator notices.
export function ensureControlFolder(stateDir: string): string {
  const dir = controlFolder(stateDir);
  mkdirpSync(stateDir, 0o700);
  try {
    mkdirPrivate(dir);
  } catch (error) {
    throw new LiveboardError('UNSAFE_CONTROL_FOLDER', `cannot create control folder ${dir} (${(error as NodeJS.ErrnoException).code})`);
  }
  checkControlFolder(dir);
  return dir;
}
