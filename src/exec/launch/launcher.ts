// How a command gets onto a terminal with zodex-spawn: three ways, each giving the one Terminal,
// chosen here and nowhere else. Flow: openLaunchers() -> launch(spec) takes the first that has a
// terminal: the pooled standby (a terminal already waiting: standby.ts), the zygote on demand (the
// small zygote forks the command's reporter onto a new terminal: zygote.ts), node-pty direct
// (nodepty.ts), which always starts it or throws.

import { startHelper } from './nodepty.js';
import { StandbyPool } from './standby.js';
import { newNonce, withEndMarker, type Terminal } from './terminal.js';
import type { CommandSpec } from './wire.js';

export interface LauncherOptions {
  spawnHelper: string; // path of the built zodex-spawn
  cols: number;
  rows: number;
  // Added to zodex-spawn's own environment (ZODEX_CGROUP), never the command's.
  helperEnv: Record<string, string>;
  standby: boolean; // keep terminals ready (the pool and its zygote); false: node-pty alone
}

export interface Launchers {
  launch(spec: CommandSpec): Promise<Terminal>;
  close(): void;
}

// zodex-spawn started by node-pty with the command on its command line.
export function spawnPty(options: CommandSpec & { spawnHelper: string; cols: number; rows: number }): Terminal {
  const nonce = newNonce();
  return withEndMarker(startHelper(options.spawnHelper, nonce, [options.file, ...options.args], options), nonce);
}

export function openLaunchers(options: LauncherOptions): Launchers {
  const pool = options.standby ? new StandbyPool(options.spawnHelper, { cols: options.cols, rows: options.rows }, options.helperEnv) : undefined;
  if (pool) {
    setImmediate(() => pool.fill());
    void pool.sweepStale();
  }
  const direct = (spec: CommandSpec) =>
    spawnPty({ ...spec, env: { ...spec.env, ...options.helperEnv }, spawnHelper: options.spawnHelper, cols: options.cols, rows: options.rows });
  return {
    launch: async (spec) => pool?.take(spec) ?? (await pool?.run(spec)) ?? direct(spec),
    close: () => pool?.close(),
  };
}
