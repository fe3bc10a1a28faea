// Everything zodexd takes from node-pty, in one place: its native module's fork (zodex-spawn on a
// new terminal, node-pty forking zodexd to start it) and openpty (a terminal opened without a
// fork, for the zygote: zygote.ts). zodexd reads both terminals itself (fdterminal.ts: one reused
// read buffer, where node-pty's reader allocates 64 KiB a read). node-pty's `loadNativeModule` is
// not part of its public API: package.json pins node-pty exactly, and spec/exec/wire.test.ts and
// standby.test.ts fail at once on a release that moves it; until then every command fails with
// SPAWN_FAILED naming the pin, rather than starting by a path no test runs.

import { createRequire } from 'node:module';
import { FdTerminal } from './fdterminal.js';
import type { Terminal } from './terminal.js';

const require = createRequire(import.meta.url);

interface NativePty {
  open(cols: number, rows: number): { master: number; slave: number; pty: string };
  // node-pty 1.x (src/unix/pty.cc): forkpty, chdir, execvp; onexit once its thread reaped the pid.
  fork(
    file: string,
    args: string[],
    env: string[],
    cwd: string,
    cols: number,
    rows: number,
    uid: number,
    gid: number,
    utf8: boolean,
    helperPath: string,
    onexit: (code: number, signal: number) => void,
  ): { fd: number; pid: number; pty: string };
}

let nativePty: { module: NativePty; dir: string } | Error | undefined;

function native(): { module: NativePty; dir: string } {
  if (nativePty === undefined) {
    try {
      // node-pty's own loader (build/Release, build/Debug or prebuilds), as node-pty itself loads it.
      nativePty = (require('node-pty/lib/utils') as { loadNativeModule(name: string): { module: NativePty; dir: string } }).loadNativeModule('pty');
    } catch (error) {
      nativePty = new Error(
        `node-pty's native module could not be loaded (${(error as Error).message}): zodexd needs the node-pty release its package.json pins`,
      );
    }
  }
  if (nativePty instanceof Error) throw nativePty;
  return nativePty;
}

// A new terminal pair and the slave's name (/dev/pts/N), as node-pty's own open makes it.
export function openTerminal(cols: number, rows: number): { master: number; slave: number; pty: string } {
  return native().module.open(cols, rows);
}

// node-pty waits this long after the exit for the terminal's last bytes (DESTROY_SOCKET_TIMEOUT_MS).
const LAST_BYTES_MS = 200;

type TerminalOptions = { cols: number; rows: number; cwd: string; env: Record<string, string> };

// Starts zodex-spawn on a new PTY with these arguments (after its nonce) through node-pty's native
// fork, as node-pty's UnixTerminal forks (PWD and TERM set, uid/gid unchanged), read by zodexd (no
// buffer per read); the exit is reported as node-pty reports it: once the terminal has been read
// to its end, or LAST_BYTES_MS after the exit.
export function startHelper(spawnHelper: string, nonce: string, args: string[], options: TerminalOptions): Terminal {
  const pty = native();
  const env = Object.entries({ ...options.env, PWD: options.cwd, TERM: options.env.TERM ?? 'dumb' }).map(([key, value]) => `${key}=${value}`);
  const onExit = (code: number, signal: number) => {
    const lastBytes = Promise.race([reader.readEnded, new Promise<void>((resolve) => setTimeout(resolve, LAST_BYTES_MS))]);
    reader.ended(code, signal, lastBytes);
  };
  const forked = pty.module.fork(spawnHelper, [nonce, ...args], env, options.cwd, options.cols, options.rows, -1, -1, false, `${pty.dir}/spawn-helper`, onExit);
  const reader = new FdTerminal(forked.fd);
  reader.forked(forked.pid);
  return reader;
}
