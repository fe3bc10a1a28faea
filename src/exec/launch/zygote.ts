// Standby terminals without forking zodexd. node-pty starts every process by forking zodexd
// itself: about a millisecond on the event loop per process, more as the heap grows, then
// copy-on-write faults on the pages zodexd touches next (measured: 281 page faults per
// exec_command, against 19 per ping). Instead zodexd opens the terminal itself (openTerminal in
// nodepty.ts: no fork) and asks the zygote, a small `zodex-spawn --zygote` started once, to fork
// the standby onto it (native/spawn-zygote.c; its lines in native/PROTOCOL.md). Flow:
//   start(nonce) -> openpty -> "NONCE /dev/pts/N" to the zygote -> "s NONCE PID" back
//   -> the standby connects to the pool's socket (standby.ts) -> settled()
//   ... the zygote reaps it: "e PID STATUS" -> onExit.
// Or start(nonce, spec): "NONCE /dev/pts/N run" and the command's frame; the zygote's child is the
// command's reporter itself (no exec of zodex-spawn, no socket, no hello).
// If the zygote cannot start or dies, start returns undefined and the next launcher is used.

import { spawn, type ChildProcess } from 'node:child_process';
import { FdTerminal } from './fdterminal.js';
import { openTerminal } from './nodepty.js';
import { parseZygoteReport, zygoteRequest, type CommandSpec } from './wire.js';

export class Zygote {
  private readonly child: ChildProcess;
  private readonly starting = new Map<string, FdTerminal>(); // by nonce, until its pid is known
  private readonly running = new Map<number, FdTerminal>(); // by pid
  private alive = true;
  private refusing = false;

  constructor(spawnHelper: string, socketPath: string, helperEnv: Record<string, string> = {}) {
    this.child = spawn(spawnHelper, ['--zygote', socketPath], {
      cwd: '/',
      env: { TERM: 'dumb', PATH: process.env.PATH ?? '/usr/bin:/bin', ...helperEnv }, // its standbys inherit it
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.child.on('error', () => this.died());
    this.child.on('exit', () => this.died());
    this.child.stdin!.on('error', () => this.died());
    let pending = '';
    this.child.stdout!.setEncoding('latin1');
    this.child.stdout!.on('data', (chunk: string) => {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf('\n')) !== -1) {
        this.report(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    });
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout]) (stream as unknown as { unref(): void }).unref();
  }

  get usable(): boolean {
    return this.alive && !this.refusing;
  }

  // A new terminal with a standby `zodex-spawn NONCE --standby SOCKET` starting on it, or with
  // `spec`, the reporter of that command forked onto it. zodexd keeps its copy of the slave side
  // until the standby says hello (settled()), or the reporter ends (no hello tells when it holds its own).
  start(nonce: string, cols: number, rows: number, spec?: CommandSpec): FdTerminal | undefined {
    if (!this.usable) return undefined;
    let fds: { master: number; slave: number; pty: string };
    try {
      fds = openTerminal(cols, rows);
    } catch {
      return undefined; // out of terminals (node-pty will say so with a clearer error), or no openpty
    }
    const terminal = new FdTerminal(fds.master, fds.slave);
    this.starting.set(nonce, terminal);
    this.child.stdin!.write(zygoteRequest(nonce, fds.pty, spec));
    return terminal;
  }

  private report(line: string): void {
    const report = parseZygoteReport(line);
    if (report?.kind === 'started') {
      const terminal = this.starting.get(report.nonce);
      this.starting.delete(report.nonce);
      if (!terminal) return;
      if (!(report.pid > 0)) {
        this.refusing = true; // it cannot start standbys here: node-pty will, from now on
        return terminal.ended(127);
      }
      terminal.forked(report.pid);
      this.running.set(report.pid, terminal);
    } else if (report?.kind === 'ended') {
      const terminal = this.running.get(report.pid);
      this.running.delete(report.pid);
      terminal?.ended(report.status.exitCode, report.status.signal);
    }
  }

  // The zygote's standbys die with it (PR_SET_PDEATHSIG), killing their commands.
  private died(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const terminal of [...this.starting.values(), ...this.running.values()]) terminal.ended(0, 1);
    this.starting.clear();
    this.running.clear();
  }

  close(): void {
    this.child.stdin?.end();
  }
}
