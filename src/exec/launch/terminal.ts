// The terminal a Session drives, whatever started the command behind it (node-pty with
// zodex-spawn, a pooled standby terminal, the zygote): bytes out, text in, a kill request and an
// exit. The launchers implement it; tests drive a Session through a fake one, with no process.

export interface TerminalExit {
  exitCode: number; // 128 + signal when the shell died of a signal, as shells report it
  signal: number | undefined;
  // false when the reporter was killed before it could report: output may miss its last bytes,
  // and whatever the command left behind is swept by the session itself.
  complete: boolean;
  // socket() calls the sandbox refused (network off), as the reporter counted them.
  networkRefused?: number | undefined;
}

export interface Terminal {
  readonly pid: number; // the command's session leader and process group id
  readonly startTime?: string; // the leader's identity (kill.ts startTimeOf), when known
  onData(listener: (bytes: Buffer) => void): void; // bytes valid during the call only: copy what you keep
  onExit(listener: (exit: TerminalExit) => void): void;
  write(data: string): void;
  // Asks for everything the command started to be killed; the exit is reported through onExit.
  requestKill(): void;
  // Closes the terminal (after the exit, or to hang up what is left of the command).
  dispose(): void;
  // Delivers now, through onData, whatever the command has written that was not read yet, output
  // still on its way between the terminal's two sides included (see FdTerminal.drain).
  drain(): void;
}
