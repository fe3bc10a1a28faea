// The three ideas SafeStore composes, each on its own: the degrade guard, the write-behind queue
// and the memory mirror of this process's agents.

import { describe, expect, it } from 'vitest';
import { DegradeGuard } from '../../../src/features/store/degrade.js';
import { StoreError } from '../../../src/features/store/errors.js';
import { AgentMirror } from '../../../src/features/store/mirror.js';
import type { SqliteStore } from '../../../src/features/store/sqlite.js';
import { WriteBehind } from '../../../src/features/store/writebehind.js';

type Batch = readonly { at: number; write: (store: SqliteStore) => void }[];

function fakeBackend(batches: Batch[] = []) {
  let closed = 0;
  const backend = { batch: (writes: Batch) => batches.push(writes), close: () => (closed += 1) } as unknown as SqliteStore;
  return { backend, closed: () => closed };
}

describe('DegradeGuard', () => {
  it('degrades once on the first failure: one warning, onDegrade, the database closed, fallbacks after', () => {
    const warnings: string[] = [];
    let stopped = 0;
    const { backend, closed } = fakeBackend();
    const guard = new DegradeGuard(
      '/state/zodex.db',
      (m) => warnings.push(m),
      () => backend,
      () => (stopped += 1),
    );
    expect(
      guard.run(
        () => 'fallback',
        () => 'db',
      ),
    ).toBe('db');
    expect(
      guard.run(
        () => 'fallback',
        () => {
          throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
        },
      ),
    ).toBe('fallback');
    expect(
      guard.run(
        () => 'fallback',
        () => 'db',
      ),
    ).toBe('fallback');
    expect([warnings.length, stopped, closed(), guard.usable]).toEqual([1, 1, 1, false]);
    expect(guard.reason).toContain('tools keep working');
  });

  it('lets validation errors through without degrading', () => {
    const guard = new DegradeGuard(
      '/db',
      () => undefined,
      () => fakeBackend().backend,
      () => undefined,
    );
    expect(() =>
      guard.run(
        () => 0,
        () => {
          throw new StoreError('ALIAS_TOO_LONG', 'too long');
        },
      ),
    ).toThrow('too long');
    expect(guard.reason).toBeUndefined();
  });

  it('starts degraded when the database cannot be opened', () => {
    const warnings: string[] = [];
    const guard = new DegradeGuard(
      '/db',
      (m) => warnings.push(m),
      () => {
        throw new Error('unable to open database file');
      },
      () => undefined,
    );
    expect([guard.usable, warnings.length]).toEqual([false, 1]);
  });
});

describe('WriteBehind', () => {
  it('writes what is queued in one batch, each write with the time it was made', () => {
    const batches: Batch[] = [];
    const { backend } = fakeBackend(batches);
    const guard = new DegradeGuard(
      '/db',
      () => undefined,
      () => backend,
      () => undefined,
    );
    let now = 100;
    const queue = new WriteBehind(guard, () => now);
    queue.defer(() => undefined);
    now = 105;
    queue.defer(() => undefined);
    expect(batches).toHaveLength(0); // nothing written while the caller waits
    queue.flush();
    expect(batches.map((batch) => batch.map((write) => write.at))).toEqual([[100, 105]]);
    queue.flush();
    expect(batches).toHaveLength(1);
  });

  it('queues nothing and hands out -1 once the store is off', () => {
    const guard = new DegradeGuard(
      '/db',
      () => undefined,
      () => {
        throw new Error('corrupt');
      },
      () => undefined,
    );
    const queue = new WriteBehind(guard, Date.now);
    expect(queue.startInvocation({ agentId: 'a', tool: 'exec_command', summary: 'ls' })).toBe(-1);
  });
});

describe('AgentMirror', () => {
  it('keeps the latest alias and reports agents ended or closed as not live', () => {
    let now = 1;
    const mirror = new AgentMirror(() => now);
    mirror.add('A1', 's1');
    mirror.setAlias('A1', 'new name', 5, 'agent');
    mirror.setAlias('A1', 'older', 3, 'operator');
    expect(mirror.list(false)).toMatchObject([{ agentId: 'A1', alias: 'new name', aliasSetBy: 'agent', live: true }]);
    expect(mirror.list(true)[0]?.live).toBe(false);
    now = 9;
    mirror.end('A1');
    expect(mirror.list(false)).toMatchObject([{ endedAt: 9, live: false }]);
  });
});
