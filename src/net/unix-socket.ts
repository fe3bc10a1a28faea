// An HTTP (or any) server on a Unix socket that only this user can reach: the folder is made
// 0700 when missing and refused when others can write it, a leftover socket is removed only
// when nothing accepts on it, and the socket is born 0600 (umask around the synchronous bind).
// At close the path is removed only while it is still this server's socket (the device and
// inode recorded at bind): a newer server's socket at the same path is left alone.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ZodexError } from '../errors.js';
import { mkdirpSync, privateFolderProblem } from '../fsutil.js';

// sun_path holds 108 bytes on Linux, 104 on macOS, the terminating NUL included.
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

export class SocketPathError extends ZodexError {
  constructor(code: 'UNSAFE_SOCKET_FOLDER' | 'SOCKET_IN_USE', message: string) {
    super(code, message);
    this.name = 'SocketPathError';
  }
}

// Why `socketPath` cannot carry a socket, or undefined (checked at start, before anything runs).
export function socketPathProblem(socketPath: string): string | undefined {
  if (!path.isAbsolute(socketPath)) return `${JSON.stringify(socketPath)} is not an absolute path; write e.g. unix:/run/user/1000/zodex/mcp.sock`;
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    return `${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, the limit of a unix socket address; pick a shorter path`;
  return undefined;
}

// Makes the folder (0700) when missing; refuses one that is a symlink, foreign or writable by others.
export function preparePrivateFolder(socketPath: string): void {
  const folder = path.dirname(socketPath);
  if (!fs.existsSync(folder)) mkdirpSync(folder, 0o700);
  const problem = privateFolderProblem(folder, false, 'the socket');
  if (problem) throw new SocketPathError('UNSAFE_SOCKET_FOLDER', `the socket folder ${folder} ${problem}`);
}

// Whether something accepts connections on the Unix socket at `socketPath` (else it is a leftover).
export function acceptsConnections(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

// A socket nobody accepts on is a leftover (a crash): removed. Anything else at the path is refused.
export async function clearStaleSocket(socketPath: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new SocketPathError('SOCKET_IN_USE', `${socketPath} exists and is not a socket; remove it or pick another path`);
  if (await acceptsConnections(socketPath))
    throw new SocketPathError('SOCKET_IN_USE', `another process is listening on ${socketPath}; stop it first or pick another path`);
  fs.unlinkSync(socketPath);
}

function bind(server: net.Server, at: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const previous = process.umask(0o177); // bind() runs synchronously inside listen(): born 0600
    try {
      server.listen(at, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
}

// Listens on `socketPath`; returns what removes the socket file, only while it is still the one
// bound here (also run when the server closes). The socket is bound under a short private name
// in the same folder and then hard-linked to `socketPath`: libuv unlinks the name it bound when
// the server closes, and that must never be `socketPath`, which may by then be a newer server's.
// (When the folder is so deep that even that name would pass the sun_path limit, the socket is
// bound at `socketPath` itself, as before.)
export async function listenPrivately(server: net.Server, socketPath: string): Promise<() => void> {
  preparePrivateFolder(socketPath);
  await clearStaleSocket(socketPath);
  const bindName = path.join(path.dirname(socketPath), `.zodex-${randomBytes(4).toString('hex')}`);
  if (Buffer.byteLength(bindName) > MAX_SOCKET_PATH_BYTES) {
    await bind(server, socketPath);
  } else {
    await bind(server, bindName);
    try {
      fs.linkSync(bindName, socketPath); // never replaces: a socket that appeared meanwhile wins
    } catch (error) {
      server.close();
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new SocketPathError('SOCKET_IN_USE', `another process is listening on ${socketPath}; stop it first or pick another path`);
      throw error;
    } finally {
      fs.rmSync(bindName, { force: true });
    }
  }
  fs.chmodSync(socketPath, 0o600);
  const bound = fs.lstatSync(socketPath);
  const remove = () => {
    try {
      const now = fs.lstatSync(socketPath);
      if (now.dev === bound.dev && now.ino === bound.ino) fs.unlinkSync(socketPath);
    } catch {
      // already gone
    }
  };
  server.once('close', remove);
  return remove;
}
