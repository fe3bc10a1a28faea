// Standby terminals: a PTY with zodex-spawn already running on it, waiting for its command, so
// that exec_command does not pay node-pty's fork (about a millisecond, on the event loop) and
// zodex-spawn's start while its caller waits. Flow: fill() starts `zodex-spawn NONCE --standby
// SOCKET` (through the zygote, else node-pty), which connects back and says its nonce; take(spec)
// sends it the command frame (wire.ts) and hands back its terminal, read as any other; the pool
// refills itself once the loop is idle. Two launchers use it (launcher.ts): the pooled standby
// (take) and, when none is ready, the zygote forking the command's reporter itself (run).
// Anything unusual (none ready, one that died) leaves the command to the next launcher, so the
// pool is a shortcut, never a dependency.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FdTerminal } from './fdterminal.js';
import { startHelper } from './nodepty.js';
import { newNonce, withEndMarker, type Terminal } from './terminal.js';
import { encodeSpec, parseHello, type CommandSpec } from './wire.js';
import { Zygote } from './zygote.js';

// How many terminals wait ready, and when the pool refills after one is taken.
const POOL_SIZE = 2;
const REFILL_DELAY_MS = 15;
// A standby that has not connected by then is given up.
const CONNECT_TIMEOUT_MS = 5_000;
const FOLDER_PREFIX = 'zodex-standby-';

interface Standby {
  nonce: string;
  pty: Terminal; // bare: its end marker not read yet
  connection: net.Socket | undefined;
  timer: NodeJS.Timeout;
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
    for (let pooled = this.waiting.size; pooled < POOL_SIZE; pooled++) if (!this.startOne()) return;
  }

  // A new standby: through the zygote, else node-pty. Undefined when none could be started.
  private startOne(): Standby | undefined {
    const nonce = newNonce();
    let pty: Terminal;
    try {
      pty =
        this.zygote?.start(nonce, this.terminal.cols, this.terminal.rows) ??
        startHelper(this.spawnHelper, nonce, ['--standby', this.socketPath], {
          ...this.terminal,
          cwd: '/',
          env: { TERM: 'dumb', PATH: process.env.PATH ?? '/usr/bin:/bin', ...this.helperEnv },
        });
    } catch {
      return undefined; // out of terminals, or node-pty unusable: the direct launch says why
    }
    const standby: Standby = { nonce, pty, connection: undefined, timer: setTimeout(() => this.drop(standby), CONNECT_TIMEOUT_MS) };
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
      const nonce = parseHello(hello);
      if (nonce === undefined) return;
      const standby = this.waiting.get(nonce);
      if (!standby || standby.connection) return connection.destroy();
      standby.connection = connection;
      clearTimeout(standby.timer);
      if (standby.pty instanceof FdTerminal) standby.pty.settled(); // it holds the terminal itself now
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
    standby.connection?.destroy();
    try {
      standby.pty.dispose();
    } catch {
      // already gone
    }
  }

  // A ready terminal running `spec`, or undefined when none is ready (spawn directly then).
  take(spec: CommandSpec): Terminal | undefined {
    let taken: Standby | undefined;
    for (const standby of this.waiting.values()) {
      if (standby.connection && standby.pty.pid > 0) {
        taken = standby;
        break;
      }
    }
    this.scheduleRefill();
    return taken && this.hand(taken, spec);
  }

  // When none is ready (a burst of commands): the zygote forks the command's own reporter onto a
  // new terminal, in microseconds where node-pty forks zodexd on the event loop, and with no exec
  // of zodex-spawn, no socket and no hello (measured faster than forking a standby for it:
  // bench/results/roundtrip-profile.json). Undefined without a usable zygote.
  async run(spec: CommandSpec): Promise<Terminal | undefined> {
    if (this.closed || !this.zygote?.usable) return undefined;
    const nonce = newNonce();
    const terminal = this.zygote.start(nonce, this.terminal.cols, this.terminal.rows, spec);
    if (!terminal) return undefined;
    if (!((await terminal.started) > 0) || this.closed) {
      terminal.dispose();
      return undefined;
    }
    return withEndMarker(terminal, nonce);
  }

  private hand(standby: Standby, spec: CommandSpec): Terminal {
    this.waiting.delete(standby.nonce);
    const pty = withEndMarker(standby.pty, standby.nonce);
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
