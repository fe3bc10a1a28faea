// Ownership of commands started in the modern era: such a command belongs to its session_handle.
// One rule whichever era asks about it: every call that waits on, types into or kills the
// command (engine.collect, from a 2026-07-28 request or a 2025 session) renews the lease; a
// handle with no call asking and none for --handle-idle-ms has its command killed (sweep). A
// command a 2025 session started has no lease: it lives as long as its session, whoever polls it.

// What the sweep needs to know of the command a handle names (undefined: none running any more).
export interface CommandUse {
  asking: boolean; // a call waits on it now
  lastAt: number; // when a call last asked about it
}

export class HandleLeases {
  private readonly leases = new Map<string, number>(); // handle -> when it was handed out

  get size(): number {
    return this.leases.size;
  }

  // A modern call handed out `handle` (exec_command whose command outlived its yield).
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
}
