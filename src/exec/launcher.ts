// How a command gets onto a terminal with zodex-spawn: one interface, three ways, chosen here
// and nowhere else. Flow: openLaunchers() -> launch(spec) asks each launcher in order — the
// pooled standby (a terminal already waiting: standby.ts), the zygote on demand (one forked now
// by the small zygote: zygote.ts), node-pty direct (nodepty.ts) — and the first that has a
// terminal runs the command. The last one always starts it or throws.

import { startHelper } from './nodepty.js';
import { attachPty, newNonce, type PtyProcess } from './pty.js';
import { StandbyPool } from './standby.js';
import type { CommandSpec } from './wire.js';

export interface Launcher {
  readonly kind: 'standby' | 'zygote' | 'direct';
  // A terminal running `spec`, or undefined when this way has none to give now (the next is asked).
  launch(spec: CommandSpec): PtyProcess | undefined | Promise<PtyProcess | undefined>;
}

export interface LauncherOptions {
  spawnHelper: string; // path of the built zodex-spawn
  cols: number;
  rows: number;
  // Added to zodex-spawn's own environment (ZODEX_CGROUP), never the command's.
  helperEnv: Record<string, string>;
  standby: boolean; // keep terminals ready (the pool and its zygote); false: node-pty alone
}

export interface Launchers {
  readonly chain: readonly Launcher[];
  // Runs `spec` through the first launcher that can; what the last one throws is thrown.
  launch(spec: CommandSpec): Promise<PtyProcess>;
  close(): void;
}

// zodex-spawn started by node-pty with the command on its command line.
export function spawnPty(options: CommandSpec & { spawnHelper: string; cols: number; rows: number }): PtyProcess {
  const nonce = newNonce();
  return attachPty(startHelper(options.spawnHelper, nonce, [options.file, ...options.args], options), nonce);
}

export function directLauncher(options: Omit<LauncherOptions, 'standby'>): Launcher {
  return {
    kind: 'direct',
    launch: (spec) => spawnPty({ ...spec, env: { ...spec.env, ...options.helperEnv }, spawnHelper: options.spawnHelper, cols: options.cols, rows: options.rows }),
  };
}

export function openLaunchers(options: LauncherOptions): Launchers {
  const pool = options.standby ? new StandbyPool(options.spawnHelper, { cols: options.cols, rows: options.rows }, options.helperEnv) : undefined;
  if (pool) {
    setImmediate(() => pool.fill());
    void pool.sweepStale();
  }
  const chain: Launcher[] = [];
  if (pool) chain.push({ kind: 'standby', launch: (spec) => pool.take(spec) }, { kind: 'zygote', launch: (spec) => pool.startFresh(spec) });
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
