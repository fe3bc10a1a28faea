// Standby terminals without forking zodexd. node-pty starts every process by forking zodexd
// itself: about a millisecond on the event loop per process, more as the heap grows, then
// copy-on-write faults on the pages zodexd touches next (measured: 281 page faults per
// exec_command, against 19 per ping). Instead zodexd opens the terminal itself (openTerminal in
// nodepty.ts: no fork) and asks the zygote, a small `zodex-spawn --zygote` started once, to fork
// the standby onto it (native/spawn-zygote.c; its lines in native/PROTOCOL.md). Flow:
//   start(nonce) -> openpty -> "NONCE /dev/pts/N" to the zygote -> "s NONCE PID" back
//   -> the standby connects to the pool's socket (standby.ts) -> settled()
//   ... the zygote reaps it: "e PID STATUS" -> onExit.
// Or run(nonce, spec): "NONCE /dev/pts/N run" and the command's frame; the zygote's child is the
// command's reporter itself (no exec of zodex-spawn, no socket, no hello).
// If the zygote cannot start or dies, both return undefined and the next launcher is used.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import tty from 'node:tty';
import { openTerminal } from './nodepty.js';
import type { HelperTerminal } from './pty.js';
import { HANG_UP, parseZygoteReport, zygoteRequest, type CommandSpec } from './wire.js';

// Every terminal reads into this one buffer (net.Socket's `onread`): a read allocates nothing, so
// 50 MB of output leaves no 50 MB of dead read buffers for the GC (and the allocator, which keeps
// freed memory resident) to catch up with. Sharing is safe: a read's listener runs to its end
// before the loop performs any other read. Listeners get a view valid during the call only.
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

type ExitListener = (exit: { exitCode: number; signal?: number }) => void;

export class ZygoteTerminal implements HelperTerminal {
  pid = 0; // set when the zygote reports the fork
  // The pid once the zygote reports the fork; 0 when it could not fork or is gone.
  readonly started: Promise<number>;
  private reportStart: (pid: number) => void = () => {};
  private readonly reader: tty.ReadStream;
  private dataListener: (data: Buffer) => void = () => {};
  private slave: number | undefined;
  private readonly queue: Buffer[] = [];
  private writing = false;
  private exitListener: ExitListener = () => {};
  private exited = false;
  private closed = false;

  constructor(
    private readonly master: number,
    slave: number,
  ) {
    this.slave = slave;
    this.started = new Promise((resolve) => (this.reportStart = resolve));
    const deliver = (length: number): boolean => {
      this.dataListener(READ_BUFFER.subarray(0, length));
      return true;
    };
    const options: net.SocketConstructorOpts & net.ConnectOpts = { onread: { buffer: READ_BUFFER, callback: deliver } };
    this.reader = new tty.ReadStream(master, options); // paused until onData
    // EIO once the last process on the terminal is gone: the exit itself comes from the zygote.
    this.reader.on('error', () => {});
  }

  onData(listener: (data: Buffer) => void): void {
    this.dataListener = listener;
    this.reader.resume();
  }

  onExit(listener: ExitListener): void {
    this.exitListener = listener;
  }

  // Written with fs.write and retried on EAGAIN, in order, as node-pty writes.
  write(data: string): void {
    if (this.closed || data.length === 0) return;
    this.queue.push(Buffer.from(data, 'utf8'));
    if (!this.writing) this.flush();
  }

  private flush(): void {
    const chunk = this.queue[0];
    if (!chunk || this.closed) {
      this.writing = false;
      return;
    }
    this.writing = true;
    fs.write(this.master, chunk, 0, chunk.length, null, (error, written) => {
      if (error?.code === 'EAGAIN') {
        setImmediate(() => this.flush());
        return;
      }
      if (error) {
        this.queue.length = 0; // the terminal is gone; so is the command's input
        this.writing = false;
        return;
      }
      if (written < chunk.length) this.queue[0] = chunk.subarray(written);
      else this.queue.shift();
      this.flush();
    });
  }

  // The standby has opened the terminal itself: zodexd's copy of the slave side can go.
  settled(): void {
    if (this.slave === undefined) return;
    fs.close(this.slave, () => {});
    this.slave = undefined;
  }

  // The slave side stays open here until the standby has it or has ended: while it is open the
  // terminal's number cannot go to a new terminal, so a standby still starting can never open
  // someone else's (it gets EIO from this one, whose master is gone, and ends).
  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.destroy(); // closes the master
    if (this.pid > 0 && !this.exited) {
      try {
        process.kill(this.pid, HANG_UP); // as node-pty does: the hang-up, even if a copy of the master lingers
      } catch {
        // already gone
      }
    }
  }

  forked(pid: number): void {
    this.pid = pid;
    this.reportStart(pid);
  }

  ended(exit: { exitCode: number; signal?: number }): void {
    this.reportStart(0); // nothing once started
    if (this.exited) return;
    this.exited = true;
    this.settled();
    this.exitListener(exit);
  }
}

export class Zygote {
  private readonly child: ChildProcess;
  private readonly starting = new Map<string, ZygoteTerminal>(); // by nonce, until its pid is known
  private readonly running = new Map<number, ZygoteTerminal>(); // by pid
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

  // A new terminal with a standby `zodex-spawn NONCE --standby SOCKET` starting on it.
  start(nonce: string, cols: number, rows: number): ZygoteTerminal | undefined {
    return this.fork(nonce, cols, rows);
  }

  // A new terminal with the reporter of `spec` forked onto it. zodexd keeps its copy of the slave
  // side until the reporter ends (no hello tells when the reporter holds its own).
  run(nonce: string, spec: CommandSpec, cols: number, rows: number): ZygoteTerminal | undefined {
    return this.fork(nonce, cols, rows, spec);
  }

  private fork(nonce: string, cols: number, rows: number, spec?: CommandSpec): ZygoteTerminal | undefined {
    if (!this.usable) return undefined;
    let fds: { master: number; slave: number; pty: string };
    try {
      fds = openTerminal(cols, rows);
    } catch {
      return undefined; // out of terminals (node-pty will say so with a clearer error), or no openpty
    }
    const terminal = new ZygoteTerminal(fds.master, fds.slave);
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
        return terminal.ended({ exitCode: 127 });
      }
      terminal.forked(report.pid);
      this.running.set(report.pid, terminal);
    } else if (report?.kind === 'ended') {
      const terminal = this.running.get(report.pid);
      this.running.delete(report.pid);
      const { exitCode, signal } = report.status;
      terminal?.ended(signal === undefined ? { exitCode } : { exitCode: 0, signal }); // node-pty's form
    }
  }

  // The zygote's standbys die with it (PR_SET_PDEATHSIG), killing their commands.
  private died(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const terminal of [...this.starting.values(), ...this.running.values()]) terminal.ended({ exitCode: 0, signal: 1 });
    this.starting.clear();
    this.running.clear();
  }

  close(): void {
    this.child.stdin?.end();
  }
}
