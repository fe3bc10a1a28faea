// Session handles (the tools' session_handle): the capability that lets a caller continue a command (144 random bits in
// URL-safe base64 behind a fixed prefix; never a pid, a counter or anything guessable), and who
// owns the command behind one, the one rule whatever era or tool asks: a command started with
// `leased` (the 2026-07-28 era, where no session holds it) belongs to its handle. Every call that
// waits on, types into or kills it (engine.collect, from a 2026-07-28 request or a 2025 session)
// renews the lease; a handle with no call asking and none for --handle-idle-ms has its command
// killed (sweep). Any other command lives as long as its owner (a 2025 session), whoever polls it.
// Flow: ExecEngine.start -> issued(handle) ... keep()'s timer, every quarter of the idle time ->
// sweep -> the command killed, one log line.

import { randomBytes } from 'node:crypto';
import type { Log } from '../log.js';
import type { ExecSession } from './session.js';

export const HANDLE_PREFIX = 'zs_';
export const HANDLE_PATTERN = /^zs_[A-Za-z0-9_-]{24}$/;

export function newSessionHandle(): string {
  return HANDLE_PREFIX + randomBytes(18).toString('base64url');
}

// An id for records (history, Liveboard) that refers to a session without granting control.
export function newSessionId(): string {
  return 's' + randomBytes(6).toString('hex');
}

// What the sweep needs to know of the command a handle names (undefined: none running any more).
export interface CommandUse {
  asking: boolean; // a call waits on it now
  lastAt: number; // when a call last asked about it
}

export class HandleLeases {
  private readonly leases = new Map<string, number>(); // handle -> when it was handed out
  private timer: NodeJS.Timeout | undefined;

  get size(): number {
    return this.leases.size;
  }

  // The engine handed out `handle` for a leased command.
  issued(handle: string, now = Date.now()): void {
    this.leases.set(handle, now);
  }

  // Kills the commands of leased handles unused for longer than idleMs; use(handle) says how
  // the command was used, undefined once it ended (then the lease is only forgotten).
  sweep(idleMs: number, use: (handle: string) => CommandUse | undefined, kill: (handle: string) => void, now = Date.now()): string[] {
    const killed: string[] = [];
    for (const [handle, issuedAt] of this.leases) {
      const command = use(handle);
      if (command === undefined) {
        this.leases.delete(handle);
        continue;
      }
      if (command.asking || now - Math.max(issuedAt, command.lastAt) <= idleMs) continue;
      this.leases.delete(handle);
      kill(handle);
      killed.push(handle);
    }
    return killed;
  }

  // Until stop(), every quarter of idleMs (50 ms to a minute): the command of each leased handle
  // unused for idleMs is killed, with one log line naming its handle and agent. running(handle):
  // its session while the command runs. Returns the sweep, for a caller that sweeps itself.
  keep(idleMs: number, running: (handle: string) => ExecSession | undefined, log: Log | undefined): (now?: number) => void {
    const kill = (handle: string) => {
      const session = running(handle)!;
      session.kill('killed');
      log?.(`a command was killed: its session_handle was unused for ${idleMs} ms (--handle-idle-ms)`, {
        handle,
        ...(session.agentId ? { agent: session.agentId } : {}),
      });
    };
    const sweep = (now = Date.now()) => void this.sweep(idleMs, (handle) => running(handle)?.use, kill, now);
    this.timer = setInterval(sweep, Math.max(50, Math.min(60_000, Math.floor(idleMs / 4))));
    this.timer.unref();
    return sweep;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
