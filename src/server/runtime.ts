// Everything one zodexd process shares across conversations: the config, the exec engine, the
// spill store, the captured shell environment. Built once at start, closed once at exit.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../cli/config.js';
import { ExecEngine } from '../exec/engine.js';
import { captureLoginEnvironment, pickShell, serverEnvironment, type ShellSetup } from '../exec/environment.js';
import { SpillStore } from '../exec/spill.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const VERSION: string = (require('../../package.json') as { version: string }).version;

// Terminal size every command sees: wide enough that tools do not wrap tables and logs.
export const TERMINAL_COLS = 200;
export const TERMINAL_ROWS = 50;
// An ended session whose exit nobody collected is forgotten after this long.
const UNREPORTED_RETENTION_MS = 3_600_000;

export interface Runtime {
  config: Config;
  engine: ExecEngine;
  spill: SpillStore;
  shell: Promise<ShellSetup>;
  log(message: string): void;
  close(): Promise<void>;
}

export function spawnHelperPath(): string {
  return process.env.ZODEX_SPAWN_HELPER ?? path.resolve(here, '../../build/Release/zodex-spawn');
}

export function createRuntime(config: Config, log: (message: string) => void): Runtime {
  const spawnHelper = spawnHelperPath();
  try {
    fs.accessSync(spawnHelper, fs.constants.X_OK);
  } catch {
    throw new Error(`the PTY helper ${spawnHelper} is missing or not executable; run \`npm ci\` (or \`npm run build\`) to build it`);
  }
  const shellPath = pickShell(config.mode);
  const shell = config.mode === 'local' ? captureLoginEnvironment(shellPath) : Promise.resolve(serverEnvironment(shellPath));
  const spill = new SpillStore({ parentDir: config.spillDir, capBytes: config.spillCapBytes, maxAgeMs: config.spillMaxAgeMs });
  spill.startCleanup(log);
  const engine = new ExecEngine({
    spawnHelper,
    shell,
    limits: { inlineBytes: config.inlineLimitBytes, previewBytes: config.previewBytes },
    spill,
    maxSessions: config.maxSessions,
    unreportedRetentionMs: UNREPORTED_RETENTION_MS,
    cols: TERMINAL_COLS,
    rows: TERMINAL_ROWS,
  });
  return {
    config,
    engine,
    spill,
    shell,
    log,
    async close() {
      spill.stop();
      await engine.shutdown();
    },
  };
}
