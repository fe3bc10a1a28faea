// How a command gets onto a terminal with zodex-spawn: one interface, three ways, chosen here
// and nowhere else. Flow: openLaunchers() -> launch(spec) asks each launcher in order — the
// pooled standby (a terminal already waiting: standby.ts), the zygote on demand (the small
// zygote forks the command's reporter onto a new terminal: zygote.ts), node-pty direct
// (nodepty.ts) — and the first that has a terminal runs the command. The last one always starts
// it or throws.

import { startHelper } from './nodepty.js';
import { StandbyPool } from './standby.js';
import { newNonce, withEndMarker, type Terminal } from './terminal.js';
import type { CommandSpec } from './wire.js';

// standby: a pooled terminal already waiting; zygote: the zygote forks the command's reporter
// onto a new terminal now; direct: node-pty.
export type LauncherKind = 'standby' | 'zygote' | 'direct';
const DEFAULT_WAYS: readonly LauncherKind[] = ['standby', 'zygote', 'direct'];

export interface Launcher {
  readonly kind: LauncherKind;
  // A terminal running `spec`, or undefined when this way has none to give now (the next is asked).
  launch(spec: CommandSpec): Terminal | undefined | Promise<Terminal | undefined>;
}

export interface LauncherOptions {
  spawnHelper: string; // path of the built zodex-spawn
  cols: number;
  rows: number;
  // Added to zodex-spawn's own environment (ZODEX_CGROUP), never the command's.
  helperEnv: Record<string, string>;
  standby: boolean; // keep terminals ready (the pool and its zygote); false: node-pty alone
  ways?: readonly LauncherKind[]; // the order they are asked in (benchmarks); direct is always last
}

export interface Launchers {
  readonly chain: readonly Launcher[];
  // Runs `spec` through the first launcher that can; what the last one throws is thrown.
  launch(spec: CommandSpec): Promise<Terminal>;
  close(): void;
}

// zodex-spawn started by node-pty with the command on its command line.
export function spawnPty(options: CommandSpec & { spawnHelper: string; cols: number; rows: number }): Terminal {
  const nonce = newNonce();
  return withEndMarker(startHelper(options.spawnHelper, nonce, [options.file, ...options.args], options), nonce);
}

export function directLauncher(options: Omit<LauncherOptions, 'standby'>): Launcher {
  return {
    kind: 'direct',
    launch: (spec) => spawnPty({ ...spec, env: { ...spec.env, ...options.helperEnv }, spawnHelper: options.spawnHelper, cols: options.cols, rows: options.rows }),
  };
}

export function openLaunchers(options: LauncherOptions): Launchers {
  const ways = options.standby ? (options.ways ?? DEFAULT_WAYS).filter((way) => way !== 'direct') : [];
  const pool = ways.length > 0 ? new StandbyPool(options.spawnHelper, { cols: options.cols, rows: options.rows }, options.helperEnv) : undefined;
  if (pool && ways.includes('standby')) {
    setImmediate(() => pool.fill());
    void pool.sweepStale();
  }
  const chain: Launcher[] = [];
  for (const kind of ways) {
    if (kind === 'standby') chain.push({ kind, launch: (spec) => pool!.take(spec) });
    if (kind === 'zygote') chain.push({ kind, launch: (spec) => pool!.run(spec) });
  }
  chain.push(directLauncher(options));
  return {
    chain,
    async launch(spec) {
      for (const launcher of chain.slice(0, -1)) {
        const pty = await launcher.launch(spec);
        if (pty) return pty;
      }
      const pty = await chain[chain.length - 1]!.launch(spec);
      if (!pty) throw new Error('no launcher could start the command');
      return pty;
    },
    close: () => pool?.close(),
  };
}
