// Standby terminals: a PTY with zodex-spawn already running on it, waiting for its command, so
// that exec_command does not pay node-pty's fork (about a millisecond, on the event loop) and
// zodex-spawn's start while its caller waits. Flow: fill() starts `zodex-spawn NONCE --standby
// SOCKET`, which connects back and says its nonce; take(spec) sends it the command (cwd,
// program, args, environment) and hands back the PTY, attached as any other; the pool refills
// itself once the loop is idle. Anything unusual (no standby ready, one that died) falls back
// to a direct spawn, so the pool is a shortcut, never a dependency.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { attachPty, newNonce, startHelper, type HelperTerminal, type PtyProcess } from './pty.js';
import { Zygote, ZygoteTerminal } from './zygote.js';

// How many terminals wait ready, and when the pool refills after one is taken.
const POOL_SIZE = 2;
const REFILL_DELAY_MS = 15;
// A standby that has not connected by then is given up; one a command waits for, sooner.
const CONNECT_TIMEOUT_MS = 5_000;
const FRESH_CONNECT_TIMEOUT_MS = 1_000;
const FOLDER_PREFIX = 'zodex-standby-';

export interface CommandSpec {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

interface Standby {
  nonce: string;
  pty: HelperTerminal;
  connection: net.Socket | undefined;
  timer: NodeJS.Timeout;
  reserved: boolean; // started for one command (startFresh): not the pool's to give out
  settled?: (ready: boolean) => void; // startFresh waits on it: connected, or dropped
}

// The frame zodex-spawn reads (decode_spec in native/zodex-spawn.c): its length, then ARGC and
// ENVC, then cwd, program, args and NAME=value entries, each string behind its byte length; all
// numbers 32-bit little-endian. No byte of a value can end a field or start another. Callers
// refuse NUL inside a value first (ExecEngine.start): execve cannot carry it, the decoder
// refuses the frame.
export function encodeSpec(spec: CommandSpec): Buffer {
  const strings = [spec.cwd, spec.file, ...spec.args, ...Object.entries(spec.env).map(([key, value]) => `${key}=${value}`)];
  const encoded = strings.map((text) => Buffer.from(text, 'utf8'));
  const frame = Buffer.alloc(12 + encoded.reduce((sum, bytes) => sum + 4 + bytes.length, 0));
  frame.writeUInt32LE(frame.length - 4, 0);
  frame.writeUInt32LE(1 + spec.args.length, 4);
  frame.writeUInt32LE(Object.keys(spec.env).length, 8);
  let at = 12;
  for (const bytes of encoded) {
    frame.writeUInt32LE(bytes.length, at);
    bytes.copy(frame, at + 4);
    at += 4 + bytes.length;
  }
  return frame;
}

export class StandbyPool {
  private readonly folder: string;
  private readonly socketPath: string;
  private readonly server: net.Server;
  private readonly waiting = new Map<string, Standby>(); // by nonce, connected or not
  private refillTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly zygote: Zygote | undefined;

  // `helperEnv`: added to zodex-spawn's own environment (ZODEX_CGROUP), never the command's.
  constructor(
    private readonly spawnHelper: string,
    private readonly terminal: { cols: number; rows: number },
    private readonly helperEnv: Record<string, string> = {},
  ) {
    // mkdtemp makes the folder 0700: only this user can reach the socket.
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), FOLDER_PREFIX));
    this.socketPath = path.join(this.folder, 's');
    this.server = net.createServer((connection) => this.greet(connection));
    this.server.listen(this.socketPath);
    this.server.unref();
    try {
      this.zygote = new Zygote(spawnHelper, this.socketPath, helperEnv);
    } catch {
      this.zygote = undefined; // node-pty starts the standbys then
    }
  }

  // Starts standbys until POOL_SIZE are waiting.
  fill(): void {
    if (this.closed) return;
    let pooled = 0;
    for (const standby of this.waiting.values()) if (!standby.reserved) pooled++;
    for (; pooled < POOL_SIZE; pooled++) this.startOne(false);
  }

  private startOne(reserved: boolean): Standby {
    const nonce = newNonce();
    const pty =
      this.zygote?.start(nonce, this.terminal.cols, this.terminal.rows) ??
      startHelper(this.spawnHelper, nonce, ['--standby', this.socketPath], {
        ...this.terminal,
        cwd: '/',
        env: { TERM: 'dumb', PATH: process.env.PATH ?? '/usr/bin:/bin', ...this.helperEnv },
      });
    const standby: Standby = { nonce, pty, connection: undefined, timer: setTimeout(() => this.drop(standby), reserved ? FRESH_CONNECT_TIMEOUT_MS : CONNECT_TIMEOUT_MS), reserved };
    standby.timer.unref();
    this.waiting.set(nonce, standby);
    pty.onExit(() => this.drop(standby)); // died while waiting: forget it (after take: not ours)
    return standby;
  }

  private greet(connection: net.Socket): void {
    let hello = '';
    connection.setEncoding('latin1');
    connection.on('data', (chunk: string) => {
      hello += chunk;
      const end = hello.indexOf('\n');
      if (end === -1) return;
      const standby = this.waiting.get(hello.slice(0, end));
      if (!standby || standby.connection) return connection.destroy();
      standby.connection = connection;
      clearTimeout(standby.timer);
      if (standby.pty instanceof ZygoteTerminal) standby.pty.releaseSlave(); // it holds its own now
      standby.settled?.(true);
    });
    connection.on('error', () => {});
    connection.on('close', () => {
      for (const standby of this.waiting.values()) if (standby.connection === connection) this.drop(standby);
    });
  }

  private drop(standby: Standby): void {
    if (this.waiting.get(standby.nonce) !== standby) return;
    this.waiting.delete(standby.nonce);
    clearTimeout(standby.timer);
    standby.settled?.(false);
    standby.connection?.destroy();
    try {
      standby.pty.destroy();
    } catch {
      // already gone
    }
  }

  // A ready terminal running `spec`, or undefined when none is ready (spawn directly then).
  take(spec: CommandSpec): PtyProcess | undefined {
    let taken: Standby | undefined;
    for (const standby of this.waiting.values()) {
      if (!standby.reserved && standby.connection && standby.pty.pid > 0) {
        taken = standby;
        break;
      }
    }
    this.scheduleRefill();
    return taken && this.hand(taken, spec);
  }

  // When none is ready (a burst of commands): a standby started now for `spec` through the
  // zygote, which forks in microseconds where node-pty forks zodexd on the event loop, one command
  // after another. Undefined without a usable zygote or when it does not come (spawn directly).
  async startFresh(spec: CommandSpec): Promise<PtyProcess | undefined> {
    if (this.closed || !this.zygote?.usable) return undefined;
    const standby = this.startOne(true);
    if (!(standby.pty instanceof ZygoteTerminal)) {
      this.drop(standby);
      return undefined;
    }
    const connected = new Promise<boolean>((resolve) => (standby.settled = resolve));
    const [ready, pid] = await Promise.all([connected, standby.pty.started]);
    if (!ready || !(pid > 0) || this.waiting.get(standby.nonce) !== standby) {
      this.drop(standby);
      return undefined;
    }
    return this.hand(standby, spec);
  }

  private hand(standby: Standby, spec: CommandSpec): PtyProcess {
    this.waiting.delete(standby.nonce);
    const pty = attachPty(standby.pty, standby.nonce);
    standby.connection!.end(encodeSpec(spec));
    return pty;
  }

  private scheduleRefill(): void {
    if (this.refillTimer || this.closed) return;
    this.refillTimer = setTimeout(() => {
      this.refillTimer = undefined;
      this.fill();
    }, REFILL_DELAY_MS);
    this.refillTimer.unref();
  }

  // Removes the folders of servers that died without closing their pool (nobody answers on their
  // socket any more): only folders of our naming, of this user, never through a symlink, never
  // this pool's own.
  async sweepStale(tmp = os.tmpdir()): Promise<number> {
    let removed = 0;
    for (const name of await fs.promises.readdir(tmp).catch(() => [] as string[])) {
      if (!name.startsWith(FOLDER_PREFIX)) continue;
      const folder = path.join(tmp, name);
      if (folder === this.folder) continue;
      const stat = await fs.promises.lstat(folder).catch(() => undefined);
      if (!stat?.isDirectory() || (typeof process.getuid === 'function' && stat.uid !== process.getuid())) continue;
      const alive = await new Promise<boolean>((resolve) => {
        const probe = net.connect(path.join(folder, 's'), () => {
          probe.destroy();
          resolve(true);
        });
        probe.on('error', () => resolve(false));
      });
      if (alive) continue;
      await fs.promises.rm(folder, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  close(): void {
    this.closed = true;
    if (this.refillTimer) clearTimeout(this.refillTimer);
    for (const standby of [...this.waiting.values()]) this.drop(standby);
    this.zygote?.close();
    this.server.close();
    fs.rmSync(this.folder, { recursive: true, force: true });
  }
}
