// The one terminal interface: a command on its own PTY with zodex-spawn (native/) as its reporter,
// however it was started (launcher.ts). ExecSession drives it; tests drive an ExecSession through a fake
// one, with no process. Flow: a launcher starts zodex-spawn on a bare terminal (fdterminal.ts, or
// node-pty's own: nodepty.ts), whose bytes still carry zodex-spawn's end marker; withEndMarker()
// reads them: bytes before the marker go to onData, the marker's status to onExit (wire.ts).
// zodex-spawn holds the terminal open until dispose(), so nothing the command wrote can be lost.
// See native/PROTOCOL.md for why.

import { randomBytes } from 'node:crypto';
import { signalProcess } from '../process/kill.js';
import { EndMarkerReader, KILL_REQUEST } from './wire.js';

export interface TerminalExit {
  exitCode: number; // 128 + signal when the shell died of a signal, as shells report it
  signal: number | undefined;
  // false when zodex-spawn was killed before it could report: output may miss the last bytes the
  // kernel held, the status is the terminal's, and whatever the command left behind is swept by
  // the session itself.
  complete: boolean;
  networkRefused?: number | undefined; // the end marker's count of socket() calls the sandbox refused
}

export interface Terminal {
  readonly pid: number; // zodex-spawn: the command's session leader and process group id (0 until known)
  // zodex-spawn's start time once its pid is known (kill.ts startTimeOf): its identity, so that a
  // later process given the same number is never signalled.
  readonly startTime?: string | undefined;
  readonly nonce?: string | undefined; // names the command's end marker and its cgroup
  onData(listener: (bytes: Buffer) => void): void; // bytes valid during the call only: copy what you keep
  onExit(listener: (exit: TerminalExit) => void): void;
  write(data: string): void;
  // Asks zodex-spawn to kill everything the command started (SIGUSR2); it then reports the exit.
  requestKill(): void;
  // Closes the terminal (after the exit, or to hang up what is left of the command): zodex-spawn,
  // if still waiting, takes the hang-up as the order to kill what is left and exit.
  dispose(): void;
  // Delivers now, through onData, whatever the command has written that was not read yet, output
  // still on its way between the terminal's two sides included (see FdTerminal.drain).
  drain(): void;
}

export function newNonce(): string {
  return randomBytes(12).toString('hex');
}

// zodex-spawn's own end, as whoever reaped it tells it (a signal, or none): no report of the command's.
export function reporterExit(exitCode: number, signal?: number): TerminalExit {
  return { exitCode: signal ? 128 + signal : exitCode, signal: signal || undefined, complete: false };
}

// Asks zodex-spawn `terminal` runs to kill the command. If it is gone, its exit is on the way; if
// its number went to another process, that is not ours.
export function requestKill(terminal: Pick<Terminal, 'pid' | 'startTime'>): void {
  signalProcess(terminal.pid, terminal.startTime, KILL_REQUEST);
}

// The command's side of a bare zodex-spawn terminal: its bytes up to the end marker, and its exit.
export function withEndMarker(bare: Terminal, nonce: string): Terminal {
  const reader = new EndMarkerReader(nonce);
  let dataListener: (bytes: Buffer) => void = () => {};
  let exitListener: (exit: TerminalExit) => void = () => {};
  let ended = false;

  const finish = (exit: TerminalExit) => {
    if (ended) return;
    ended = true;
    exitListener(exit);
  };

  // After the marker: stragglers of a background job are dropped; the group is killed.
  bare.onData((data) => {
    const { output, status } = reader.push(data);
    if (output) dataListener(output);
    if (status) finish({ ...status, complete: true });
  });

  bare.onExit((exit) => {
    const rest = reader.end();
    if (rest) dataListener(rest);
    finish(exit);
  });

  return {
    get pid() {
      return bare.pid;
    },
    get startTime() {
      return bare.startTime;
    },
    nonce,
    write: (data) => bare.write(data),
    onData: (listener) => {
      dataListener = listener;
    },
    onExit: (listener) => {
      exitListener = listener;
    },
    requestKill: () => bare.requestKill(),
    drain: () => bare.drain(),
    dispose: () => {
      try {
        bare.dispose();
      } catch {
        // already closed
      }
    },
  };
}
