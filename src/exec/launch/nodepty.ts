// Everything zodexd takes from node-pty, in one place: its native module's fork (zodex-spawn on a
// new terminal, node-pty forking zodexd to start it) and openpty (a terminal opened without a
// fork, for the zygote: zygote.ts). zodexd reads both terminals itself (fdterminal.ts: one reused
// read buffer, where node-pty's reader allocates 64 KiB a read). node-pty's `loadNativeModule` is
// not part of its public API; if a node-pty release moves it, openTerminal() throws (the zygote is
// not used) and startHelper() falls back to node-pty's public spawn.

import { createRequire } from 'node:module';
import type { IPty } from 'node-pty';
import { FdTerminal } from './fdterminal.js';
import { startTimeOf } from '../process/kill.js';
import { reporterExit, requestKill, type Terminal } from './terminal.js';

const require = createRequire(import.meta.url);
const nodePty = require('node-pty') as typeof import('node-pty');

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
      nativePty = error as Error;
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

// Starts zodex-spawn on a new PTY with these arguments (after its nonce): node-pty's native fork,
// read by zodexd (no buffer per read); node-pty's public spawn when its native module is not there.
export function startHelper(spawnHelper: string, nonce: string, args: string[], options: TerminalOptions): Terminal {
  let loaded: { module: NativePty; dir: string } | undefined;
  try {
    loaded = native();
  } catch {
    loaded = undefined;
  }
  if (typeof loaded?.module.fork !== 'function') return spawnWithNodePty(spawnHelper, nonce, args, options);
  return forkHelper(loaded, spawnHelper, [nonce, ...args], options);
}

// As node-pty's UnixTerminal forks (PWD and TERM set, uid/gid unchanged), and as it reports the
// exit: once the terminal has been read to its end, or LAST_BYTES_MS after the exit.
function forkHelper(pty: { module: NativePty; dir: string }, file: string, args: string[], options: TerminalOptions): Terminal {
  const env = Object.entries({ ...options.env, PWD: options.cwd, TERM: options.env.TERM ?? 'dumb' }).map(([key, value]) => `${key}=${value}`);
  const onExit = (code: number, signal: number) => {
    const lastBytes = Promise.race([reader.readEnded, new Promise<void>((resolve) => setTimeout(resolve, LAST_BYTES_MS))]);
    reader.ended(code, signal, lastBytes);
  };
  const forked = pty.module.fork(file, args, env, options.cwd, options.cols, options.rows, -1, -1, false, `${pty.dir}/spawn-helper`, onExit);
  const reader = new FdTerminal(forked.fd);
  reader.forked(forked.pid);
  return reader;
}

function spawnWithNodePty(spawnHelper: string, nonce: string, args: string[], options: TerminalOptions): Terminal {
  const pty = nodePty.spawn(spawnHelper, [nonce, ...args], {
    name: options.env.TERM ?? 'dumb',
    cols: options.cols,
    rows: options.rows,
    cwd: options.cwd,
    env: options.env,
    encoding: null,
  } as Parameters<typeof nodePty.spawn>[2]);
  const bare: Terminal = {
    pid: pty.pid,
    startTime: startTimeOf(pty.pid),
    onData: (listener) => void pty.onData((data) => listener(data as unknown as Buffer)), // encoding null: bytes
    onExit: (listener) => void pty.onExit(({ exitCode, signal }) => listener(reporterExit(exitCode, signal))),
    write: (data) => pty.write(data),
    requestKill: () => requestKill(bare),
    // node-pty's own reader holds the descriptor: what is pending arrives through it.
    drain: () => {},
    dispose: () => (pty as IPty & { destroy(): void }).destroy(), // the typings omit it
  };
  return bare;
}
