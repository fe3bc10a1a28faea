// An exec session (not an MCP session: transport/http/sessions.ts): one running command, its output
// buffer, its deadline and how it ended.
// Flow: PTY bytes -> AnsiStripper -> StreamRedactor (known secrets become [REDACTED:NAME]) ->
// OutputBuffer and live observers (Liveboard); the PTY's exit, the timeout or a kill ends
// it (the termination reason is set once, by whoever ends it first); waits end early when it
// answers typed input or waits for input (inputwait.ts); report() takes a view, rewind() makes
// the next one deliver again from a stream offset.

import { AnsiStripper } from './output/ansi.js';
import type { InputProbe } from './process/inputwait.js';
import { killProcessTree } from './process/kill.js';
import { OutputBuffer, type OutputLimits, type SpillSink, type SpillView } from './output/buffer.js';
import { StreamRedactor, type RedactionSource } from './output/redact.js';
import { exitedSummary, runningSummary, type TerminationReason } from './summary.js';
import type { Terminal } from './launch/terminal.js';

// Cleanup after a command ends is deferred by this much (see finish()).
const HOUSEKEEPING_DELAY_MS = 10;
// After a kill, how long zodex-spawn gets to report before it is killed too.
const KILL_REPORT_GRACE_MS = 2_000;
// A wait ends when the command waits for terminal input and neither output nor typed input has
// come for this long; the kernel's view is looked at every INPUT_POLL_MS once it is quiet.
export const INPUT_SETTLE_MS = 20;
export const INPUT_POLL_MS = 50;
// A wait on the terminal that ends by itself (a timeout, or a main thread on a timer: inputwait.ts)
// counts as a prompt only once the command has also been quiet this long: a program that checks
// for a key between the lines it prints keeps printing; a prompt with a timeout (vim, top between
// redraws, a Node prompt beside a timer) does not.
export const TIMED_INPUT_QUIET_MS = 1_000;
const INPUT_CONFIRM_MS = 5;
// Typed input is not taken by the program until the kernel's line discipline has run (a worker
// thread, late under load); until then the program still looks like it waits. Its echo proves
// that step is done; without an echo (echo off) zodexd waits this long after typing instead.
const INPUT_UNECHOED_MS = 250;

export interface WaitOptions {
  deadline: number; // epoch ms (Infinity: none)
  signal?: AbortSignal | undefined;
  // Once the command printed something other than the echo of typed input, end after this
  // much quiet (so an answer written in pieces comes back whole).
  answerSettleMs?: number | undefined;
  // End as soon as the command waits for terminal input (where that can be told).
  untilInput?: boolean | undefined;
  // A poll: once there is output not yet delivered (already when the wait begins, or as it
  // comes), end after `quietMs` without more, or `maxMs` after the first of it at the latest.
  outputSettle?: { quietMs: number; maxMs: number } | undefined;
}

export interface ExecSessionEnd {
  exitCode: number;
  signal: number | undefined;
  reason: TerminationReason;
  endedAt: number;
  networkRefused: number | undefined; // socket() calls the sandbox refused, when there were any
}

// What the sandbox refused, in the words a result uses (the engine's caller writes them: they
// name the configured bounds). A write refusal is inferred from the output (EROFS's message);
// network refusals are counted by zodex-spawn.
export interface RefusalNotes {
  write?: string | undefined;
  network?: (count: number) => string;
}

// strerror(EROFS) in the C locale: what a refused write prints under the sandbox's read-only mounts.
const READ_ONLY_MESSAGE = 'Read-only file system';

export interface ExecSessionReport {
  status: 'running' | 'exited';
  summary: string;
  output: string;
  outputHead: string | undefined; // once spilled, when what is new did not fit
  outputOmitted: string | undefined; // what lies between outputHead and output, and where
  outputOffset: number; // stream bytes delivered up to and including this report
  cwd: string;
  handle: string | undefined; // only while running
  exitCode: number | undefined;
  signal: number | undefined;
  terminationReason: TerminationReason | undefined;
  spill: SpillView | undefined;
  elapsedMs: number;
  // While running, where it can be told (Linux): whether the command waits for terminal input.
  waitingForInput: boolean | undefined;
  // What the sandbox refused since the previous report (writes) or in all (network, at the exit).
  sandboxRefused?: string | undefined;
}

export interface ExecSessionInit {
  id: string;
  handle: string;
  owner: string;
  agentId: string | undefined;
  principal?: string | undefined;
  cmd: string;
  cwd: string;
  timeoutMs: number;
  limits: OutputLimits;
  openSpill: () => SpillSink;
  cgroup?: string | undefined; // the command's own cgroup, when zodexd has a cgroup folder
  // Tells whether the command waits for terminal input (Linux: inputwait.ts); undefined where
  // that cannot be told.
  inputProbe: InputProbe | undefined;
  // Values never shown: replaced in the output before anything keeps or sees it.
  secrets?: RedactionSource | undefined;
  refusals?: RefusalNotes | undefined; // with a sandbox or the network off
}

export class ExecSession {
  readonly id: string;
  readonly handle: string;
  readonly owner: string;
  readonly agentId: string | undefined;
  readonly principal: string | undefined; // who may use the handle (engine.find)
  readonly cmd: string;
  readonly cwd: string;
  readonly cgroup: string | undefined;
  readonly startedAt = Date.now();
  private readonly output: OutputBuffer;
  private readonly stripper = new AnsiStripper();
  private readonly redactor: StreamRedactor | undefined;
  private reason: TerminationReason | undefined;
  private ended: ExecSessionEnd | undefined;
  private endReported = false;
  private readonly timeout: NodeJS.Timeout;
  private killTimer: NodeJS.Timeout | undefined;
  private readonly endWaiters = new Set<() => void>();
  private readonly dataListeners = new Set<(bytes: Uint8Array) => void>();
  // The terminal's echo of what was last typed, not yet seen in the output: it is no answer.
  private pendingEcho: Buffer | undefined;
  private readonly answerListeners = new Set<() => void>();
  private readonly outputListeners = new Set<() => void>(); // any new output (polls)
  private readonly inputProbe: InputProbe | undefined;
  private lastActivityAt = Date.now(); // the latest output or typed input
  private typedAt = 0;
  private readonly refusals: RefusalNotes | undefined;
  private writeRefused = false; // EROFS's message seen since the previous report
  private writeRefusalCount = 0; // EROFS's messages seen in all (the operator's metrics)
  private refusalTail = ''; // the output's last bytes, for a message split across reads
  // Calls asking about it (engine.collect), whichever protocol era sent them: what keeps a
  // handle's lease alive (handles.ts).
  private asking = 0;
  private askedAt = Date.now();

  constructor(
    init: ExecSessionInit,
    private readonly pty: Terminal,
  ) {
    this.id = init.id;
    this.handle = init.handle;
    this.owner = init.owner;
    this.agentId = init.agentId;
    this.principal = init.principal;
    this.cmd = init.cmd;
    this.cwd = init.cwd;
    this.cgroup = init.cgroup;
    this.output = new OutputBuffer(init.limits, init.openSpill);
    this.timeout = setTimeout(() => this.kill('timeout'), init.timeoutMs);
    this.inputProbe = init.inputProbe;
    this.redactor = init.secrets && new StreamRedactor(init.secrets);
    this.refusals = init.refusals;
    pty.onData((bytes) => this.receive(this.stripper.push(bytes)));
    pty.onExit((exit) => {
      this.receive(this.stripper.end());
      if (this.redactor) this.show(this.redactor.end());
      this.finish(exit.exitCode, exit.signal, exit.complete, exit.networkRefused);
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  get hasEnded(): boolean {
    return this.ended !== undefined;
  }

  get end(): ExecSessionEnd | undefined {
    return this.ended;
  }

  // True once a result carried the exit: the handle is then spent.
  get isSpent(): boolean {
    return this.endReported;
  }

  // How often the output showed the read-only file system's message (a write the sandbox refused).
  get writeRefusals(): number {
    return this.writeRefusalCount;
  }

  // Clean output as it arrives, for live observers (Liveboard). The bytes are valid during the
  // call only (they may be a view of a reused read buffer): copy what you keep.
  onOutput(listener: (bytes: Uint8Array) => void): () => void {
    this.dataListeners.add(listener);
    return () => this.dataListeners.delete(listener);
  }

  // Clean bytes: activity and answers are told from them as the command wrote them; what is shown
  // is what the redactor lets through (it may hold back the start of a secret until it can tell).
  private receive(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.lastActivityAt = Date.now();
    if (this.refusals?.write !== undefined) this.watchWrites(bytes);
    const answered = this.skipEcho(bytes) < bytes.length;
    this.show(this.redactor ? this.redactor.push(bytes) : bytes);
    if (answered) for (const listener of this.answerListeners) listener();
  }

  private show(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.output.push(bytes);
    for (const listener of this.dataListeners) listener(bytes);
    for (const listener of this.outputListeners) listener();
  }

  // Looks for EROFS's message in the output, across reads.
  private watchWrites(bytes: Uint8Array): void {
    const text = this.refusalTail + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    for (let at = text.indexOf(READ_ONLY_MESSAGE); at !== -1; at = text.indexOf(READ_ONLY_MESSAGE, at + READ_ONLY_MESSAGE.length)) {
      this.writeRefused = true;
      this.writeRefusalCount += 1;
    }
    this.refusalTail = text.slice(-(READ_ONLY_MESSAGE.length - 1));
  }

  // How many leading bytes of `bytes` are the terminal echoing typed input back.
  private skipEcho(bytes: Uint8Array): number {
    const echo = this.pendingEcho;
    if (!echo) return 0;
    let same = 0;
    while (same < echo.length && same < bytes.length && echo[same] === bytes[same]) same++;
    this.pendingEcho = same === echo.length || same < bytes.length ? undefined : echo.subarray(same);
    return same;
  }

  private finish(exitCode: number, signal: number | undefined, reported: boolean, networkRefused?: number): void {
    if (this.ended) return;
    clearTimeout(this.timeout);
    if (this.killTimer) clearTimeout(this.killTimer);
    this.ended = { exitCode, signal, reason: this.reason ?? 'exit', endedAt: Date.now(), networkRefused: networkRefused || undefined };
    this.output.ended();
    for (const wake of this.endWaiters) wake();
    this.endWaiters.clear();
    // The shell is gone; whatever it left behind goes with it. Closing the terminal tells
    // zodex-spawn, which still holds the command's orphans, to kill them all. Only if it died
    // before reporting does zodexd sweep for them itself. This housekeeping waits a few ms, so
    // that it runs while the loop is idle rather than between a result and the next request.
    setTimeout(() => {
      if (!reported) this.killTree();
      this.pty.dispose();
    }, HOUSEKEEPING_DELAY_MS);
  }

  // A call starts or stops asking about this session (waiting on it, typing, killing).
  beginAsking(): void {
    this.asking++;
    this.askedAt = Date.now();
  }

  endAsking(): void {
    this.asking = Math.max(0, this.asking - 1);
    this.askedAt = Date.now();
  }

  // Whether a call asks about it now, and when one last did.
  get use(): { asking: boolean; lastAt: number } {
    return { asking: this.asking > 0, lastAt: this.askedAt };
  }

  write(chars: string): void {
    if (this.ended) return;
    // With ECHO on (the default) the terminal sends the input back first, CR as LF.
    this.pendingEcho = Buffer.from(chars.replace(/\r/g, '\n'), 'utf8');
    this.lastActivityAt = this.typedAt = Date.now();
    this.pty.write(chars);
  }

  // Resolves when the command ends, at the deadline, when the signal aborts, once it has
  // answered (answerSettleMs), once new output has settled (outputSettle) or once it waits for
  // terminal input (untilInput).
  wait(options: WaitOptions): Promise<void> {
    const { deadline, signal, answerSettleMs, outputSettle } = options;
    if (this.ended || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      let settle: NodeJS.Timeout | undefined;
      let probe: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        clearTimeout(settle);
        clearTimeout(probe);
        signal?.removeEventListener('abort', done);
        this.endWaiters.delete(done);
        this.answerListeners.delete(answered);
        this.outputListeners.delete(output);
        resolve();
      };
      const answered = () => {
        clearTimeout(settle);
        settle = setTimeout(done, Math.min(answerSettleMs ?? 0, Math.max(0, deadline - Date.now())));
      };
      // New output ends a poll once it has been quiet for quietMs, maxMs after it began at most.
      let firstOutputAt: number | undefined;
      const output = () => {
        const now = Date.now();
        firstOutputAt ??= now;
        clearTimeout(settle);
        // quiet since the latest output (or typing): output waiting since before the poll may be quiet already
        const end = Math.min(this.lastActivityAt + outputSettle!.quietMs, firstOutputAt + outputSettle!.maxMs, deadline);
        settle = setTimeout(done, Math.max(0, end - now));
      };
      // Looks once output and typing have been quiet for INPUT_SETTLE_MS, then every INPUT_POLL_MS;
      // a yes is taken when a second look INPUT_CONFIRM_MS later agrees (a process tree passes
      // through moments when all sleep, e.g. between a fork and the child's first run).
      let seen = false;
      const look = () => {
        const quiet = Date.now() - this.lastActivityAt;
        const unechoed = this.pendingEcho ? INPUT_UNECHOED_MS - (Date.now() - this.typedAt) : 0;
        if (quiet < INPUT_SETTLE_MS || unechoed > 0) {
          seen = false;
          probe = setTimeout(look, Math.max(INPUT_SETTLE_MS - quiet, Math.min(unechoed, INPUT_POLL_MS)));
        } else if (!this.waitsForInput(quiet)) {
          seen = false;
          probe = setTimeout(look, INPUT_POLL_MS);
        } else if (seen) {
          // Confirmed: take in what the command wrote before it began to wait (a prompt may still
          // be on its way to the terminal's master side); if that was output, look again later.
          const before = this.lastActivityAt;
          this.pty.drain();
          if (this.lastActivityAt === before) return done();
          seen = false;
          probe = setTimeout(look, INPUT_SETTLE_MS);
        } else {
          seen = true;
          probe = setTimeout(look, INPUT_CONFIRM_MS);
        }
      };
      const timer = deadline === Infinity ? undefined : setTimeout(done, Math.max(0, deadline - Date.now()));
      signal?.addEventListener('abort', done, { once: true });
      this.endWaiters.add(done);
      if (answerSettleMs !== undefined) this.answerListeners.add(answered);
      if (outputSettle) {
        this.outputListeners.add(output);
        if (this.output.hasUndelivered) output(); // output that came since the previous result counts
      }
      if (options.untilInput && this.inputProbe) probe = setTimeout(look, Math.max(0, INPUT_SETTLE_MS - (Date.now() - this.lastActivityAt)));
    });
  }

  // What the kernel's view says, with a timed wait taken for a prompt only after a longer quiet.
  private waitsForInput(quietMs: number): boolean {
    const state = this.inputProbe!.check();
    return state === 'input' || (state === 'timed' && quietMs >= TIMED_INPUT_QUIET_MS);
  }

  // Kills every process of the command: zodex-spawn kills its descendants on request and then
  // reports the exit with all output read. If it has not within the grace period, zodexd kills
  // the whole tree, zodex-spawn included.
  kill(reason: Exclude<TerminationReason, 'exit'>): void {
    if (this.ended) return;
    this.reason ??= reason;
    this.pty.requestKill();
    this.killTimer ??= setTimeout(() => this.killTree(), KILL_REPORT_GRACE_MS);
  }

  // Kills the whole command, zodex-spawn included, from zodexd (kill.ts), never a process that got
  // the leader's number after it ended.
  killTree(): void {
    killProcessTree(this.pty.pid, this.cgroup, this.pty.startTime);
  }

  // Resolves when the command ends, at `deadline` (epoch ms) if one is given, or when `signal`
  // aborts, whichever is first.
  waitForEnd(deadline = Infinity, signal?: AbortSignal): Promise<void> {
    return this.wait({ deadline, signal });
  }

  // The next report delivers the stream again from byte `offset` (throws SINCE_OFFSET_* when it
  // cannot: nothing changes then).
  rewind(offset: number): void {
    this.output.rewind(offset);
  }

  // The result view: output since the previous report, status, and the end once there is one.
  report(): ExecSessionReport {
    const ended = this.ended;
    const view = this.output.take(ended !== undefined);
    const now = ended?.endedAt ?? Date.now();
    const elapsedMs = now - this.startedAt;
    if (ended) this.endReported = true;
    return {
      status: ended ? 'exited' : 'running',
      summary: ended ? exitedSummary(elapsedMs, ended.reason, ended.exitCode) : runningSummary(elapsedMs, this.handle),
      output: view.text,
      outputHead: view.head,
      outputOmitted: view.omitted,
      outputOffset: view.offset,
      cwd: this.cwd,
      handle: ended ? undefined : this.handle,
      exitCode: ended?.exitCode,
      signal: ended?.signal,
      terminationReason: ended?.reason,
      spill: view.spill,
      elapsedMs,
      waitingForInput: ended || !this.inputProbe ? undefined : this.waitsForInput(Date.now() - this.lastActivityAt),
      sandboxRefused: this.takeRefusals(ended),
    };
  }

  private takeRefusals(ended: ExecSessionEnd | undefined): string | undefined {
    const notes: string[] = [];
    if (this.writeRefused && this.refusals?.write) notes.push(this.refusals.write);
    if (ended?.networkRefused && this.refusals?.network) notes.push(this.refusals.network(ended.networkRefused));
    this.writeRefused = false;
    return notes.length > 0 ? notes.join('; ') : undefined;
  }

  // Releases the output buffer's spill file; the session object is dropped after this.
  close(): void {
    this.output.close();
  }
}
