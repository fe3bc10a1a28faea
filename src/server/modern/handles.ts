// Ownership of commands in the modern era: a running command belongs to its session_handle.
// Every call that hands a handle out or names one renews its lease; a handle with no call in
// flight and unused for --handle-idle-ms has its command killed (sweep).

export class HandleLeases {
  private readonly leases = new Map<string, { lastUse: number; inFlight: number }>();

  get size(): number {
    return this.leases.size;
  }

  // A call naming `handle` starts (write_stdin).
  begin(handle: string, now = Date.now()): void {
    const lease = this.leases.get(handle) ?? { lastUse: now, inFlight: 0 };
    lease.inFlight++;
    lease.lastUse = now;
    this.leases.set(handle, lease);
  }

  // A call that named `handle` ended; running: whether its command is still running after it.
  end(handle: string, running: boolean, now = Date.now()): void {
    const lease = this.leases.get(handle);
    if (!lease) return;
    lease.inFlight = Math.max(0, lease.inFlight - 1);
    lease.lastUse = now;
    if (!running && lease.inFlight === 0) this.leases.delete(handle);
  }

  // A call handed out `handle` (exec_command whose command outlived its yield).
  issued(handle: string, now = Date.now()): void {
    const lease = this.leases.get(handle);
    if (lease) lease.lastUse = now;
    else this.leases.set(handle, { lastUse: now, inFlight: 0 });
  }

  // Kills the commands of handles unused for longer than idleMs; kill(handle) returns false when
  // the handle names no running command any more (then the lease is only forgotten).
  sweep(idleMs: number, kill: (handle: string) => boolean, now = Date.now()): string[] {
    const killed: string[] = [];
    for (const [handle, lease] of this.leases) {
      if (lease.inFlight > 0 || now - lease.lastUse <= idleMs) continue;
      this.leases.delete(handle);
      if (kill(handle)) killed.push(handle);
    }
    return killed;
  }
}
