// One command on its own PTY, with every byte of its output and its exit status.
// Flow: a launcher (launcher.ts) puts zodex-spawn (native/) on a terminal with the command;
// attachPty() reads that terminal: bytes before zodex-spawn's end marker go to onData, the
// marker's status to onExit (wire.ts). zodex-spawn holds the terminal open until dispose(), so
// nothing the command wrote can be lost. See native/PROTOCOL.md for why.

import { randomBytes } from 'node:crypto';
import { signalProcess } from '../process/kill.js';
import { EndMarkerReader, KILL_REQUEST } from './wire.js';

export interface PtyExit {
  exitCode: number; // 128 + signal when the shell died of a signal, as shells report it
  signal: number | undefined;
  // false when zodex-spawn itself was killed before it could report: output may then miss
  // the last bytes the kernel held, and the status is the terminal's.
  complete: boolean;
  networkRefused?: number | undefined; // the end marker's count of socket() calls the sandbox refused
}

export interface PtyProcess {
  readonly pid: number; // zodex-spawn: session leader and process group id of the command
  readonly startTime: string | undefined; // its identity (HelperTerminal.startTime)
  readonly nonce: string; // names the command's end marker and its cgroup
  write(data: string): void;
  onData(listener: (bytes: Buffer) => void): void; // bytes valid during the call only
  onExit(listener: (exit: PtyExit) => void): void;
  // Asks zodex-spawn to kill everything the command started (SIGUSR2); it then reports the exit.
  requestKill(): void;
  // Closes the terminal. zodex-spawn, if still waiting, takes the hang-up as the order to kill
  // what is left of the command and exit.
  dispose(): void;
  drain(): void; // as HelperTerminal.drain, through the end-marker reader
}

// A terminal with zodex-spawn on it, however it was started: by node-pty (nodepty.ts) or by the
// zygote onto a terminal zodexd opened (zygote.ts). Data arrives as bytes, which may be a view
// of a read buffer that the next read reuses: a listener copies what it keeps. The exit is
// zodex-spawn's own.
export interface HelperTerminal {
  readonly pid: number; // 0 until the process is known
  // zodex-spawn's start time once its pid is known (kill.ts startTimeOf): its identity, so that a
  // later process given the same number is never signalled.
  readonly startTime?: string;
  // The pid once zodex-spawn runs; 0 when it could not be started.
  readonly started: Promise<number>;
  onData(listener: (data: Buffer) => void): void;
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): void;
  write(data: string): void;
  // zodex-spawn holds the terminal itself now (a standby said hello): copies zodexd kept open
  // until then, so that the terminal's number could not be reused, can go.
  settled(): void;
  // Closes the terminal and hangs up zodex-spawn.
  destroy(): void;
  // Reads what is pending on the terminal now, delivering it through onData.
  drain(): void;
}

export function newNonce(): string {
  return randomBytes(12).toString('hex');
}

// The command's side of a zodex-spawn terminal: its bytes up to the end marker, and its exit.
export function attachPty(pty: HelperTerminal, nonce: string): PtyProcess {
  const reader = new EndMarkerReader(nonce);
  let dataListener: (bytes: Buffer) => void = () => {};
  let exitListener: (exit: PtyExit) => void = () => {};
  let ended = false;

  const finish = (exit: PtyExit) => {
    if (ended) return;
    ended = true;
    exitListener(exit);
  };

  // After the marker: stragglers of a background job are dropped; the group is killed.
  pty.onData((data) => {
    const { output, status } = reader.push(data);
    if (output) dataListener(output);
    if (status) finish({ ...status, complete: true });
  });

  pty.onExit(({ exitCode, signal }) => {
    const rest = reader.end();
    if (rest) dataListener(rest);
    finish({ exitCode: signal ? 128 + signal : exitCode, signal: signal || undefined, complete: false });
  });

  return {
    pid: pty.pid,
    get startTime() {
      return pty.startTime;
    },
    nonce,
    write: (data) => pty.write(data),
    onData: (listener) => {
      dataListener = listener;
    },
    onExit: (listener) => {
      exitListener = listener;
    },
    // If it is gone, its exit is on the way; if its number went to another process, that is not ours.
    requestKill: () => signalProcess(pty.pid, pty.startTime, KILL_REQUEST),
    drain: () => pty.drain(),
    dispose: () => {
      try {
        pty.destroy();
      } catch {
        // already closed
      }
    },
  };
}
