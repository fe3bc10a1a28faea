// The process engine: starts commands on PTYs, keeps the sessions that outlive a call, and
// answers "wait up to N ms, then tell me what happened". Knows nothing of MCP.
// Flow: start() -> ExecSession (registered under its handle) -> collect() waits and reports; a
// report that carries the exit retires the handle. Owners (conversations) take their
// sessions with them when they close; a leased command is killed once its handle goes unused
// (handles.ts); shutdown() kills everything. Commands run in a cgroup of their own where one can
// be made (cgroup.ts), so kills reach every descendant.

import path from 'node:path';
import { ZodexError, quote } from '../errors.js';
import type { Log } from '../log.js';
import { openCgroupFolder, removeCgroupFolder, sweepStaleCgroupFolders } from './process/cgroup.js';
import type { ShellSetup } from './environment.js';
import { HandleLeases, newSessionHandle, newSessionId } from './handles.js';
import { createInputProbe } from './process/inputwait.js';
import { refuseNul } from './nul.js';
import type { OutputLimits } from './output/buffer.js';
import { openLaunchers, type Launchers } from './launch/launcher.js';
import type { Terminal } from './launch/terminal.js';
import type { RedactionSource } from './output/redact.js';
import { ExecSession, type RefusalNotes, type ExecSessionReport, type WaitOptions } from './session.js';
import type { SpillStore } from './output/spill.js';

export interface EngineOptions {
  spawnHelper: string;
  shell: Promise<ShellSetup>;
  limits: OutputLimits;
  spill: SpillStore;
  maxSessions: number;
  // How long an ended session whose exit no caller has collected yet is kept.
  unreportedRetentionMs: number;
  cols: number;
  rows: number;
  // Keep terminals ready for the next commands (see launcher.ts, standby.ts).
  standby: boolean;
  // Where the kill mechanism is announced (cgroup or /proc sweep), once at start, and each
  // command killed for its lease.
  log?: Log;
  // A leased command whose handle no call asked about for this long is killed (--handle-idle-ms);
  // absent: leases never run out.
  handleIdleMs?: number;
  // false: never make a cgroup (the /proc sweep alone); default true
  cgroups?: boolean;
  // Values no output may show (redact.ts): replaced by [REDACTED:NAME] in every session's stream.
  secrets?: RedactionSource;
  // With a sandbox or the network off: how a result names what the sandbox refused.
  refusals?: RefusalNotes | undefined;
}

export interface StartRequest {
  cmd: string;
  cwd: string;
  timeoutMs: number;
  owner: string; // the conversation: its close kills the command
  // The command belongs to its handle (the 2026-07-28 era): unused for handleIdleMs, it is killed.
  leased?: boolean;
  agentId?: string; // for records only
  principal?: string; // who may use the handle (an OAuth grant id, else 'static'); absent: anyone
  env?: Readonly<Record<string, string>>; // added to the captured environment (frozen: built once per object)
}

export interface EngineEvents {
  onSessionStart?(session: ExecSession): void;
  onSessionEnd?(session: ExecSession): void;
}

export class ExecEngine {
  private readonly sessions = new Map<string, ExecSession>();
  private readonly expiries = new Map<ExecSession, NodeJS.Timeout>();
  private readonly launchers: Launchers;
  private readonly environments = new WeakMap<object, Readonly<Record<string, string>>>();
  private readonly leases = new HandleLeases();
  // Kills now the leased commands whose handles went unused for handleIdleMs (handles.ts: a timer
  // sweeps by itself too).
  readonly sweepLeases: (now?: number) => void = () => {};
  private closing = false;
  // This server's cgroup folder (zodex-spawn makes one cgroup per command below it), if any.
  readonly cgroupDir: string | undefined;

  constructor(
    private readonly options: EngineOptions,
    private readonly events: EngineEvents = {},
  ) {
    const cgroup = options.cgroups === false ? { reason: 'disabled' } : openCgroupFolder();
    if ('dir' in cgroup) {
      this.cgroupDir = cgroup.dir;
      options.log?.(
        `kill: each command runs in its own cgroup v2 below ${cgroup.dir} (${cgroup.atomicKill ? 'cgroup.kill' : 'freeze, then SIGKILL each member'})`,
      );
      void sweepStaleCgroupFolders();
    } else {
      options.log?.(`kill: no cgroup (${cgroup.reason}); descendants are swept through /proc until none is left`);
    }
    // zodex-spawn's own environment additions; it removes them before the command starts.
    const helperEnv: Record<string, string> = this.cgroupDir ? { ZODEX_CGROUP: this.cgroupDir } : {};
    this.launchers = openLaunchers({ spawnHelper: options.spawnHelper, cols: options.cols, rows: options.rows, helperEnv, standby: options.standby });
    if (options.handleIdleMs !== undefined) this.sweepLeases = this.leases.keep(options.handleIdleMs, (handle) => this.runningSession(handle), options.log);
  }

  // False once shutdown() began: no command starts any more.
  get accepting(): boolean {
    return !this.closing;
  }

  // Commands running now (ended sessions wait for their report, and are not counted).
  get running(): number {
    let running = 0;
    for (const session of this.sessions.values()) if (!session.hasEnded) running++;
    return running;
  }

  list(): ExecSession[] {
    return [...this.sessions.values()];
  }

  async start(request: StartRequest): Promise<ExecSession> {
    if (this.closing) throw shuttingDown();
    const { running } = this;
    if (running >= this.options.maxSessions) {
      throw new ZodexError(
        'SESSION_LIMIT',
        `${running} sessions are already running (the limit is ${this.options.maxSessions}); ` +
          'finish or kill one with write_stdin (kill_process: true) before starting another',
      );
    }
    refuseNul(request);
    const setup = await this.options.shell;
    const handle = newSessionHandle();
    const spec = { file: setup.shell, args: ['-c', request.cmd], cwd: request.cwd, env: this.environment(setup, request.env) };
    let pty: Terminal;
    try {
      pty = await this.launchers.launch(spec);
    } catch (error) {
      throw new ZodexError('SPAWN_FAILED', `could not start ${setup.shell}: ${(error as Error).message}`);
    }
    if (this.closing) {
      pty.dispose();
      throw shuttingDown();
    }
    const session = new ExecSession(
      {
        id: newSessionId(),
        handle,
        owner: request.owner,
        agentId: request.agentId,
        principal: request.principal,
        cmd: request.cmd,
        cwd: request.cwd,
        timeoutMs: request.timeoutMs,
        limits: this.options.limits,
        openSpill: () => this.options.spill.create(),
        cgroup: this.cgroupDir && pty.nonce && path.join(this.cgroupDir, pty.nonce),
        inputProbe: createInputProbe(pty.pid),
        secrets: this.options.secrets,
        refusals: this.options.refusals,
      },
      pty,
    );
    this.sessions.set(handle, session);
    if (request.leased) this.leases.issued(handle);
    this.events.onSessionStart?.(session);
    void session.waitForEnd().then(() => this.onEnded(session));
    return session;
  }

  // The captured environment with a request's additions. Frozen additions (a conversation's, the
  // same object each call) get one frozen result, built once, whose encoding wire.ts then keeps.
  private environment(setup: ShellSetup, extra: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> {
    if (!extra) return setup.env;
    if (!Object.isFrozen(extra)) return { ...setup.env, ...extra };
    let env = this.environments.get(extra);
    if (!env) this.environments.set(extra, (env = Object.freeze({ ...setup.env, ...extra })));
    return env;
  }

  private onEnded(session: ExecSession): void {
    this.events.onSessionEnd?.(session);
    // Nobody may ever ask again: drop the record after a while so memory stays bounded.
    if (this.sessions.get(session.handle) !== session) return;
    const timer = setTimeout(() => this.retire(session), this.options.unreportedRetentionMs);
    timer.unref();
    this.expiries.set(session, timer);
  }

  // The live session a handle names, if any (no error).
  peek(handle: string): ExecSession | undefined {
    const session = this.sessions.get(handle);
    return session && !session.isSpent ? session : undefined;
  }

  // The session a handle names while its command runs.
  private runningSession(handle: string): ExecSession | undefined {
    const session = this.peek(handle);
    return session && !session.hasEnded ? session : undefined;
  }

  // The session a handle names, or UNKNOWN_SESSION with a message a model can act on. A handle
  // started under another principal (another OAuth grant) answers exactly like one that never existed.
  find(handle: string, principal?: string): ExecSession {
    const session = this.peek(handle);
    if (!session || (principal !== undefined && session.principal !== undefined && session.principal !== principal)) {
      throw new ZodexError(
        'UNKNOWN_SESSION',
        `no running session has the handle ${quote(handle)}: it never existed, its exit was already ` +
          'reported, or its server restarted. Start the command again with exec_command.',
      );
    }
    return session;
  }

  // Waits until the session ends or `yieldMs` passes (or earlier: see WaitOptions), then
  // reports. A report carrying the exit retires the handle. A call whose signal aborted takes
  // no report: the output and the exit stay for the next call (CANCELLED is thrown).
  async collect(
    session: ExecSession,
    yieldMs: number,
    signal?: AbortSignal,
    options: Omit<WaitOptions, 'deadline' | 'signal'> = {},
  ): Promise<ExecSessionReport> {
    session.beginAsking();
    try {
      await session.wait({ deadline: Date.now() + yieldMs, signal, ...options });
    } finally {
      session.endAsking();
    }
    if (signal?.aborted)
      throw new ZodexError(
        'CANCELLED',
        'the client cancelled this call; nothing was reported, so the next call on the session returns the output and exit since the previous result',
      );
    const report = session.report();
    if (report.status === 'exited') this.retire(session);
    return report;
  }

  private retire(session: ExecSession): void {
    if (this.sessions.get(session.handle) !== session) return;
    this.sessions.delete(session.handle);
    clearTimeout(this.expiries.get(session));
    this.expiries.delete(session);
    session.close();
  }

  // Kills every session started by `owner` (a conversation that closed).
  closeOwner(owner: string): void {
    this.closeWhere((session) => session.owner === owner);
  }

  // Kills every running session started under `principal` (an OAuth grant that was revoked), in
  // whichever conversation or agent; returns how many.
  closePrincipal(principal: string): number {
    return this.closeWhere((session) => session.principal === principal);
  }

  // Kills the sessions `which` picks and retires each once it ended; returns how many ran.
  private closeWhere(which: (session: ExecSession) => boolean): number {
    let killed = 0;
    for (const session of this.list()) {
      if (!which(session)) continue;
      if (!session.hasEnded) killed++;
      session.kill('killed');
      void session.waitForEnd().then(() => this.retire(session));
    }
    return killed;
  }

  // Kills everything: every command gets `graceMs` for zodex-spawn to report, then whatever is
  // left of its process group is killed outright.
  async shutdown(graceMs = 500): Promise<void> {
    this.closing = true;
    this.leases.stop();
    this.launchers.close();
    const sessions = this.list();
    for (const session of sessions) session.kill('killed');
    const deadline = Date.now() + graceMs;
    await Promise.all(sessions.map((session) => session.waitForEnd(deadline)));
    for (const session of sessions) {
      if (!session.hasEnded) session.killTree();
      this.retire(session);
    }
    if (this.cgroupDir) await removeCgroupFolder(this.cgroupDir);
  }
}

// One text for a start refused while draining, whether found before or after the terminal came.
function shuttingDown(): ZodexError {
  return new ZodexError('SHUTTING_DOWN', 'zodexd is shutting down; no new commands are started');
}
