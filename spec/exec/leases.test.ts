import { describe, expect, it } from 'vitest';
import { HandleLeases } from '../../src/exec/leases.js';

describe('HandleLeases: a command started in the modern era belongs to its handle', () => {
  it('kills a handle nobody asked about for longer than the idle time, never one a call waits on', () => {
    const leases = new HandleLeases();
    const uses: Record<string, { asking: boolean; lastAt: number }> = { a: { asking: false, lastAt: 0 }, b: { asking: true, lastAt: 50 } };
    const killed: string[] = [];
    const sweep = (now: number) => leases.sweep(100, (handle) => uses[handle], (handle) => killed.push(handle), now);
    leases.issued('a', 0);
    leases.issued('b', 0);
    expect(sweep(101)).toEqual(['a']);
    expect(sweep(1_000)).toEqual([]); // b: a call waits on it
    uses.b = { asking: false, lastAt: 1_000 }; // asked about by a call of either era
    expect(sweep(1_050)).toEqual([]);
    expect(sweep(1_101)).toEqual(['b']);
    expect(killed).toEqual(['a', 'b']);
    expect(leases.size).toBe(0);
  });

  it('forgets a handle whose command ended; a handle it never handed out has no lease', () => {
    const leases = new HandleLeases();
    leases.issued('gone', 0);
    expect(leases.sweep(10, () => undefined, () => expect.unreachable(), 100)).toEqual([]);
    expect(leases.size).toBe(0);
    expect(leases.sweep(10, () => ({ asking: false, lastAt: 0 }), () => expect.unreachable(), 100)).toEqual([]);
  });
});
