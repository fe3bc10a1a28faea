// Session handles: what one is; who owns the command behind it, the lease rule alone, then the
// engine applying it to real commands.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { configFor } from '../../src/app/config/parse.js';
import { engineOptions } from '../../src/app/options.js';
import { ExecEngine } from '../../src/exec/engine.js';
import { serverEnvironment } from '../../src/exec/environment.js';
import { HANDLE_PATTERN, HandleLeases, newSessionHandle, newSessionId } from '../../src/exec/handles.js';
import { SpillStore } from '../../src/exec/output/spill.js';

describe('session handles', () => {
  it('are URL-safe, carry at least 128 random bits, and do not repeat', () => {
    const handles = Array.from({ length: 10_000 }, newSessionHandle);
    for (const handle of handles.slice(0, 100)) {
      expect(handle).toMatch(HANDLE_PATTERN);
      expect(encodeURIComponent(handle)).toBe(handle);
      expect(Buffer.from(handle.slice(3), 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
    expect(new Set(handles).size).toBe(handles.length);
  });

  it('look nothing like a pid or a counter', () => {
    const handles = Array.from({ length: 100 }, newSessionHandle);
    expect(handles.filter((handle) => /^zs_\d+$/.test(handle))).toEqual([]);
    const sorted = [...handles].sort();
    expect(sorted).not.toEqual(handles);
  });

  it('session ids for records differ from handles', () => {
    expect(newSessionId()).toMatch(/^s[0-9a-f]{12}$/);
  });
});

describe('HandleLeases: a command started in the modern era belongs to its handle', () => {
  it('kills a handle nobody asked about for longer than the idle time, never one a call waits on', () => {
    const leases = new HandleLeases();
    const uses: Record<string, { asking: boolean; lastAt: number }> = { a: { asking: false, lastAt: 0 }, b: { asking: true, lastAt: 50 } };
    const killed: string[] = [];
    const sweep = (now: number) =>
      leases.sweep(
        100,
        (handle) => uses[handle],
        (handle) => killed.push(handle),
        now,
      );
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
    expect(
      leases.sweep(
        10,
        () => undefined,
        () => expect.unreachable(),
        100,
      ),
    ).toEqual([]);
    expect(leases.size).toBe(0);
    expect(
      leases.sweep(
        10,
        () => ({ asking: false, lastAt: 0 }),
        () => expect.unreachable(),
        100,
      ),
    ).toEqual([]);
  });
});

describe('ExecEngine: the lease of a command started leased', () => {
  const helper = process.env.ZODEX_SPAWN_HELPER ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../../build/Release/zodex-spawn');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-leases-'));
  const engines: ExecEngine[] = [];
  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.shutdown()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('kills it once no call asked about it for handleIdleMs, with one log line naming handle and agent; an owned command lives on', async () => {
    const lines: unknown[][] = [];
    // --handle-idle-ms as zodexd passes it; its own sweep never comes within the test: sweepLeases is called.
    const options = engineOptions(configFor(['--mode', 'sprite', '--handle-idle-ms', '60000']), {
      spawnHelper: helper,
      shell: Promise.resolve(serverEnvironment('/bin/sh', { remove: [], set: {} })),
      spill: new SpillStore({ parentDir: dir, capBytes: 1 << 20, maxAgeMs: 3_600_000 }),
      log: (...line: unknown[]) => void lines.push(line),
    });
    const engine = new ExecEngine({ ...options, standby: false, cgroups: false });
    engines.push(engine);
    const start = (leased: boolean) => engine.start({ cmd: 'sleep 30', cwd: '/', timeoutMs: 60_000, owner: 'conversation-1', agentId: 'AB12', leased });
    const [leased, owned] = [await start(true), await start(false)];
    expect((await engine.collect(leased, 50)).status).toBe('running');
    engine.sweepLeases(Date.now() + 59_000);
    expect(leased.hasEnded).toBe(false);
    engine.sweepLeases(Date.now() + 60_100);
    await leased.waitForEnd(Date.now() + 10_000);
    expect(leased.end?.reason).toBe('killed');
    expect(owned.hasEnded).toBe(false);
    expect(lines.filter(([message]) => String(message).startsWith('a command was killed'))).toEqual([
      ['a command was killed: its session_handle was unused for 60000 ms (--handle-idle-ms)', { handle: leased.handle, agent: 'AB12' }],
    ]);
  });
});
