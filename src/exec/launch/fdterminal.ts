// A bare terminal (terminal.ts) whose master side zodexd reads and writes itself, whoever forked
// zodex-spawn on it: the zygote (zygote.ts) or node-pty's native fork (nodepty.ts). Flow: reads
// land in one shared buffer (no allocation per read) -> onData; write() queues and retries EAGAIN;
// the exit comes from whoever reaps the process (ended()); dispose() closes the master and hangs
// the process up.

import fs from 'node:fs';
import type net from 'node:net';
import tty from 'node:tty';
import { signalProcess, startTimeOf } from '../process/kill.js';
import { reporterExit, requestKill, type Terminal, type TerminalExit } from './terminal.js';
import { HANG_UP } from './wire.js';

// Every terminal reads into this one buffer (net.Socket's `onread`): a read allocates nothing, so
// 50 MB of output leaves no 50 MB of dead read buffers for the GC (and the allocator, which keeps
// freed memory resident) to catch up with; node's default reader, node-pty's, allocates 64 KiB a
// read. Sharing is safe: a read's listener runs to its end before the loop performs any other
// read. Listeners get a view valid during the call only.
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export class FdTerminal implements Terminal {
  pid = 0; // set once the fork is known
  startTime: string | undefined; // read then (kill.ts startTimeOf)
  // The pid once the fork is reported; 0 when it could not fork or is gone.
  readonly started: Promise<number>;
  // Settles when the reader has ended (EIO once no process holds the terminal, or dispose()).
  readonly readEnded: Promise<void>;
  private reportStart: (pid: number) => void = () => {};
  private readonly reader: tty.ReadStream;
  private dataListener: (data: Buffer) => void = () => {};
  private readonly queue: Buffer[] = [];
  private writing = false;
  private exitListener: (exit: TerminalExit) => void = () => {};
  private exited = false;
  private closed = false;

  // `slave`: zodexd's copy of the slave side, kept open until settled() or the exit (undefined
  // when zodexd holds none).
  constructor(
    private readonly master: number,
    private slave?: number,
  ) {
    this.started = new Promise((resolve) => (this.reportStart = resolve));
    const deliver = (length: number): boolean => {
      this.dataListener(READ_BUFFER.subarray(0, length));
      return true;
    };
    const options: net.SocketConstructorOpts & net.ConnectOpts = { onread: { buffer: READ_BUFFER, callback: deliver } };
    this.reader = new tty.ReadStream(master, options); // paused until onData
    this.readEnded = new Promise((resolve) => this.reader.once('close', () => resolve()));
    // EIO once the last process on the terminal is gone: the exit itself is reported apart.
    this.reader.on('error', () => {});
  }

  onData(listener: (data: Buffer) => void): void {
    this.dataListener = listener;
    this.reader.resume();
  }

  onExit(listener: (exit: TerminalExit) => void): void {
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

  // A terminal's output reaches its master side through a kernel work queue, which under load can
  // lag the writer by milliseconds: a prompt may be written, and its writer already waiting for
  // input, before the master is readable. A read of the master that finds nothing first waits
  // for that queue (n_tty_read flushes the port's buffer work), so reading until EAGAIN here
  // delivers everything the command wrote up to now. The master is non-blocking (libuv set it).
  drain(): void {
    if (this.closed || this.reader.isPaused()) return;
    for (;;) {
      let length: number;
      try {
        length = fs.readSync(this.master, READ_BUFFER, 0, READ_BUFFER.length, null);
      } catch {
        return; // EAGAIN: nothing more now; EIO: the terminal has ended (the reader sees it too)
      }
      if (length <= 0) return;
      this.dataListener(READ_BUFFER.subarray(0, length));
    }
  }

  // The process has opened the terminal itself: zodexd's copy of the slave side can go.
  settled(): void {
    if (this.slave === undefined) return;
    fs.close(this.slave, () => {});
    this.slave = undefined;
  }

  requestKill(): void {
    requestKill(this);
  }

  // The slave side stays open here until the process has it or has ended: while it is open the
  // terminal's number cannot go to a new terminal, so a standby still starting can never open
  // someone else's (it gets EIO from this one, whose master is gone, and ends).
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.reader.destroy(); // closes the master
    // As node-pty does: the hang-up, even if a copy of the master lingers. zodex-spawn may have
    // ended, and been reaped by the zygote, before zodexd heard: its number may be another's now.
    if (this.pid > 0 && !this.exited) signalProcess(this.pid, this.startTime, HANG_UP);
  }

  forked(pid: number): void {
    this.pid = pid;
    this.startTime = startTimeOf(pid);
    this.reportStart(pid);
  }

  // The process was reaped (its exit code, or the signal that ended it): it is never signalled
  // again. The exit is reported now, or once `after` settles (the terminal's last bytes read first).
  ended(exitCode: number, signal?: number, after?: Promise<void>): void {
    this.reportStart(0); // nothing once started
    if (this.exited) return;
    this.exited = true;
    this.settled();
    const exit = reporterExit(exitCode, signal);
    if (after) void after.then(() => this.exitListener(exit));
    else this.exitListener(exit);
  }
}
