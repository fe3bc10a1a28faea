import { describe, expect, it } from 'vitest';
import { HttpSessionTable, type HttpSession } from '../../../src/transport/http/sessions.js';

function table(cap: number, running: Set<string> = new Set()) {
  const t = new HttpSessionTable(
    cap,
    (id) => running.has(id),
    () => {},
  );
  const add = (id: string, lastActivity: number, inFlight = 0) => {
    const conversation: HttpSession = {
      id,
      transport: undefined as never,
      lastActivity,
      inFlight,
      opening: false,
      principal: 'static',
      close: async () => t.delete(id),
    };
    t.add(conversation);
    return conversation;
  };
  return { t, add };
}

describe('HttpSessionTable', () => {
  it('admits freely below the cap', () => {
    const { t, add } = table(2);
    add('a', 1);
    expect(t.admit()).toBe(true);
    expect(t.size).toBe(1);
  });

  it('evicts the least recently used idle conversation, never a busy one', () => {
    const running = new Set(['a']);
    const { t, add } = table(3, running);
    add('a', 1); // oldest, but a command runs in it
    add('b', 3);
    add('c', 2, 1); // a call in flight
    expect(t.admit()).toBe(true);
    expect(
      t
        .values()
        .map((c) => c.id)
        .sort(),
    ).toEqual(['a', 'c']);
  });

  it('refuses when every conversation is busy, and counts those still opening', () => {
    const { t, add } = table(2, new Set(['a']));
    add('a', 1);
    add('b', 2).opening = true;
    expect(t.admit()).toBe(false);
    expect(t.get('b')).toBeUndefined(); // not reachable by its id until initialized
    expect(t.size).toBe(2);
  });

  it('sweeps conversations idle past the idle time', () => {
    const { t, add } = table(5);
    add('old', 0);
    add('busy', 0, 1);
    add('new', 900);
    t.sweep(500, 1000);
    expect(
      t
        .values()
        .map((c) => c.id)
        .sort(),
    ).toEqual(['busy', 'new']);
  });
});
