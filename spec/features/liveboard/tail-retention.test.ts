// A Liveboard tail outlives its session by TAIL_RETENTION_MS, and must keep nothing but itself: an
// ended session whose exit was reported (its output buffer, terminal, listeners) is garbage at
// once. Before, the tail's retention timer held the session for a minute, and with it every
// buffer of every command of that minute (the soak creep of issue 23).

import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/features/store/index.js';
import { realEngine, scratch } from './support.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const store = { sessionStarted() {}, sessionEnded() {} } as unknown as Store;
const { engine, tails } = realEngine(store, 'server', scratch('retention'));
afterAll(() => engine.shutdown());

// Runs one command to its reported exit; only a weak reference to its session leaves this frame.
async function runToEnd(i: number): Promise<{ session: WeakRef<object>; id: string }> {
  const session = await engine.start({ cmd: `echo tail ${i}`, cwd: '/', timeoutMs: 10_000, owner: 'test' });
  const report = await engine.collect(session, 10_000);
  expect(report.status).toBe('exited');
  return { session: new WeakRef(session), id: session.id };
}

describe('a tail kept after its session ended', () => {
  it('holds no reference to the session', async () => {
    const refs: { session: WeakRef<object>; id: string }[] = [];
    for (let i = 0; i < 5; i++) refs.push(await runToEnd(i));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the session's own housekeeping (10 ms)
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    for (const { session, id } of refs) {
      expect(tails.get(id)?.subscribe(() => {}).recent).toMatch(/^tail \d\n$/); // the tail is still readable
      expect(session.deref(), `session ${id} is still reachable`).toBeUndefined();
    }
  });
});
