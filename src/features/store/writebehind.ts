// The write-behind queue: record-only writes (invocations, sessions, operator actions) are queued
// and written together FLUSH_DELAY_MS later, in one transaction, each with the time it was made,
// so a tool call pays no database write while its caller waits. Reads and close() flush first.

import type { DegradeGuard } from './degrade.js';
import type { SqliteStore } from './sqlite.js';
import type { InvocationFinish, InvocationStart } from './types.js';

const FLUSH_DELAY_MS = 10;

export class WriteBehind {
  private readonly pending: { at: number; write: (backend: SqliteStore) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  // Invocation ids handed out before their row exists -> the row id, once written.
  private nextInvocation = 1;
  private readonly invocationRows = new Map<number, number>();

  constructor(
    private readonly guard: DegradeGuard,
    private readonly now: () => number,
  ) {}

  defer(write: (backend: SqliteStore) => void): void {
    if (!this.guard.usable) return;
    this.pending.push({ at: this.now(), write });
    this.timer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  // Writes what is queued (called by the timer, before reads, and at close).
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0) return;
    const writes = this.pending.splice(0);
    this.guard.run(
      () => undefined,
      (backend) => backend.batch(writes),
    );
  }

  // An id for finishInvocation(), handed out before the row is written (-1: the store is off).
  startInvocation(row: InvocationStart): number {
    if (!this.guard.usable) return -1;
    const id = this.nextInvocation++;
    this.defer((backend) => this.invocationRows.set(id, backend.startInvocation(row)));
    return id;
  }

  finishInvocation(id: number, row: InvocationFinish): void {
    if (id < 0) return;
    this.defer((backend) => {
      const rowId = this.invocationRows.get(id);
      this.invocationRows.delete(id);
      if (rowId !== undefined) backend.finishInvocation(rowId, row);
    });
  }
}
