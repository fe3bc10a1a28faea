// A Terminal with no process behind it: the test emits output and the exit, and sees what was
// typed and whether a kill was asked for. Its pid can never exist (above any pid_max).
import type { Terminal, TerminalExit } from '../../src/exec/launch/terminal.js';
import type { InputProbe, InputState } from '../../src/exec/process/inputwait.js';
import { ExecSession, type ExecSessionInit } from '../../src/exec/session.js';
import { MemorySink } from './memory-sink.js';

export const IMPOSSIBLE_PID = 99_999_999;

export class FakeTerminal implements Terminal {
  readonly pid = IMPOSSIBLE_PID;
  readonly typed: string[] = [];
  killRequests = 0;
  disposed = false;
  // What a kill request does: by default the reporter kills the command and reports SIGKILL.
  onKill: (() => void) | undefined = () => this.exit({ exitCode: 137, signal: 9, complete: true });
  private readonly dataListeners: ((bytes: Buffer) => void)[] = [];
  private readonly exitListeners: ((exit: TerminalExit) => void)[] = [];

  onData(listener: (bytes: Buffer) => void): void {
    this.dataListeners.push(listener);
  }
  onExit(listener: (exit: TerminalExit) => void): void {
    this.exitListeners.push(listener);
  }
  write(data: string): void {
    this.typed.push(data);
  }
  requestKill(): void {
    this.killRequests += 1;
    this.onKill?.();
  }
  dispose(): void {
    this.disposed = true;
  }
  // Output the command wrote that has not reached the terminal's reader yet: delivered by drain().
  private readonly inFlight: Buffer[] = [];
  drain(): void {
    for (const bytes of this.inFlight.splice(0)) for (const listener of this.dataListeners) listener(bytes);
  }
  // The command prints, and the bytes are still on their way (as under load, in the kernel).
  printInFlight(text: string): void {
    this.inFlight.push(Buffer.from(text, 'utf8'));
  }
  // The command prints.
  print(text: string | Buffer): void {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    for (const listener of this.dataListeners) listener(bytes);
  }
  exit(exit: Partial<TerminalExit> = {}): void {
    const full = { exitCode: 0, signal: undefined, complete: true, ...exit };
    for (const listener of this.exitListeners) listener(full);
  }
}

// A probe the test sets: `waiting` while the fake command "waits for input", `timed` while it
// waits on the terminal with a timeout.
export class FakeProbe implements InputProbe {
  waiting = false;
  timed = false;
  looks = 0;
  check(): InputState {
    this.looks += 1;
    return this.waiting ? 'input' : this.timed ? 'timed' : 'none';
  }
}

export function fakeSession(options: Partial<ExecSessionInit> & { inlineBytes?: number } = {}) {
  const terminal = new FakeTerminal();
  const sink = new MemorySink(1 << 20);
  const inline = options.inlineBytes ?? 16_384;
  const session = new ExecSession(
    {
      id: 's-test',
      handle: 'zs_test',
      owner: 'conversation-1',
      agentId: 'AB12',
      cmd: 'fake',
      cwd: '/fake',
      timeoutMs: 60_000,
      limits: { inlineBytes: inline, previewBytes: 4_096, headBytes: 1_024, tailBytes: 4_096 },
      openSpill: () => sink,
      inputProbe: undefined,
      ...options,
    },
    terminal,
  );
  return { session, terminal, sink };
}
