// One command on its own PTY, with every byte of its output and its exit status.
// Flow: node-pty spawns zodex-spawn (native/zodex-spawn.c), which runs the shell and, when the
// shell ends, writes an end marker and waits; bytes before the marker go to onData, the
// marker's status to onExit. zodex-spawn holds the terminal open until dispose(), so nothing
// the command wrote can be lost. See native/zodex-spawn.c for why.

import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { IPty } from 'node-pty';

const require = createRequire(import.meta.url);
const nodePty = require('node-pty') as typeof import('node-pty');

export interface PtySpawnOptions {
  spawnHelper: string; // path of the built zodex-spawn
  file: string; // the shell
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
}

export interface PtyExit {
  exitCode: number; // 128 + signal when the shell died of a signal, as shells report it
  signal: number | undefined;
  // false when zodex-spawn itself was killed before it could report: output may then miss
  // the last bytes the kernel held, and the status is node-pty's.
  complete: boolean;
}

export interface PtyProcess {
  readonly pid: number; // zodex-spawn: session leader and process group id of the command
  readonly nonce: string; // names the command's end marker and its cgroup
  write(data: string): void;
  onData(listener: (bytes: Buffer) => void): void;
  onExit(listener: (exit: PtyExit) => void): void;
  // Asks zodex-spawn to kill everything the command started (SIGUSR2); it then reports the exit.
  requestKill(): void;
  // Closes the terminal. zodex-spawn, if still waiting, takes the hang-up as the order to kill
  // what is left of the command and exit.
  dispose(): void;
}

// A terminal with zodex-spawn on it, as attachPty needs it: node-pty's (startHelper) or one the
// zygote started (zygote.ts). Data arrives as bytes; the exit is zodex-spawn's own.
export interface HelperTerminal {
  readonly pid: number;
  onData(listener: (data: Buffer) => void): void;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): void;
  write(data: string): void;
  // Closes the terminal and hangs up zodex-spawn.
  destroy(): void;
}

const MARKER_PREFIX = '\x1b]6972;';
const BEL = 0x07;

export function newNonce(): string {
  return randomBytes(12).toString('hex');
}

// Starts zodex-spawn on a new PTY with these arguments (after its nonce).
export function startHelper(spawnHelper: string, nonce: string, args: string[], terminal: { cols: number; rows: number; cwd: string; env: Record<string, string> }): HelperTerminal {
  const pty = nodePty.spawn(spawnHelper, [nonce, ...args], {
    name: terminal.env.TERM ?? 'dumb',
    cols: terminal.cols,
    rows: terminal.rows,
    cwd: terminal.cwd,
    env: terminal.env,
    encoding: null,
  } as Parameters<typeof nodePty.spawn>[2]);
  return {
    get pid() {
      return pty.pid;
    },
    onData: (listener) => void pty.onData((data) => listener(data as unknown as Buffer)), // encoding null: bytes
    onExit: (listener) => void pty.onExit(listener),
    write: (data) => pty.write(data),
    destroy: () => (pty as IPty & { destroy(): void }).destroy(), // the typings omit it
  };
}

export function spawnPty(options: PtySpawnOptions): PtyProcess {
  const nonce = newNonce();
  return attachPty(startHelper(options.spawnHelper, nonce, [options.file, ...options.args], options), nonce);
}

// The command's side of a zodex-spawn PTY: its bytes up to the end marker, and its exit.
export function attachPty(pty: HelperTerminal, nonce: string): PtyProcess {
  const marker = Buffer.from(`${MARKER_PREFIX}${nonce};`, 'latin1');
  let dataListener: (bytes: Buffer) => void = () => {};
  let exitListener: (exit: PtyExit) => void = () => {};
  let carry: Buffer | undefined; // bytes that may be the start of the marker
  let ended = false;

  const finish = (exit: PtyExit) => {
    if (ended) return;
    ended = true;
    carry = undefined;
    exitListener(exit);
  };

  pty.onData((data) => {
    if (ended) return; // after the marker: stragglers of a background job; the group is killed
    let bytes = data;
    if (carry) {
      bytes = Buffer.concat([carry, bytes]);
      carry = undefined;
    }
    const at = bytes.indexOf(marker);
    if (at === -1) {
      const keep = possibleMarkerStart(bytes, marker);
      if (keep > 0) carry = Buffer.from(bytes.subarray(bytes.length - keep));
      const emit = keep > 0 ? bytes.subarray(0, bytes.length - keep) : bytes;
      if (emit.length > 0) dataListener(emit);
      return;
    }
    if (at > 0) dataListener(bytes.subarray(0, at));
    const bel = bytes.indexOf(BEL, at + marker.length);
    if (bel === -1) {
      carry = Buffer.from(bytes.subarray(at)); // the status has not fully arrived yet
      return;
    }
    finish({ ...parseStatus(bytes.subarray(at + marker.length, bel).toString('latin1')), complete: true });
  });

  pty.onExit(({ exitCode, signal }) => {
    if (carry) dataListener(carry);
    finish({ exitCode: signal ? 128 + signal : exitCode, signal: signal || undefined, complete: false });
  });

  return {
    pid: pty.pid,
    nonce,
    write: (data) => pty.write(data),
    onData: (listener) => {
      dataListener = listener;
    },
    onExit: (listener) => {
      exitListener = listener;
    },
    requestKill: () => {
      try {
        process.kill(pty.pid, 'SIGUSR2');
      } catch {
        // already gone: its exit is on the way
      }
    },
    dispose: () => {
      try {
        pty.destroy();
      } catch {
        // already closed
      }
    },
  };
}

// "x<code>" or "s<signal>", as zodex-spawn writes it in its end marker and its zygote in an exit
// report: the exit code, or the signal with 128 + signal as the shell's code.
export function parseStatus(status: string): { exitCode: number; signal: number | undefined } {
  const value = Number.parseInt(status.slice(1), 10);
  if (status.startsWith('s') && Number.isFinite(value)) return { exitCode: 128 + value, signal: value };
  return { exitCode: Number.isFinite(value) ? value : 255, signal: undefined };
}

// How many trailing bytes of `bytes` could be the beginning of `marker` (held back until the
// next read decides). Only an ESC can start it, so most reads hold back nothing.
function possibleMarkerStart(bytes: Buffer, marker: Buffer): number {
  const from = Math.max(0, bytes.length - marker.length + 1);
  let at = bytes.indexOf(0x1b, from);
  while (at !== -1) {
    const tail = bytes.subarray(at);
    if (marker.subarray(0, tail.length).equals(tail)) return tail.length;
    at = bytes.indexOf(0x1b, at + 1);
  }
  return 0;
}
