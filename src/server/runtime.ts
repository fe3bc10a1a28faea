// Everything one zodexd process shares across conversations: the config, the exec engine, the
// spill store, the captured shell environment. Built once at start, closed once at exit.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../cli/config.js';
import { openStore, type Store } from '../store/index.js';
import { ExecEngine } from '../exec/engine.js';
import { captureLoginEnvironment, pickShell, serverEnvironment, type ShellSetup } from '../exec/environment.js';
import { commandPolicy } from '../publisher/environment.js';
import { SpillStore } from '../exec/spill.js';
import { startControlServer, type ControlServer } from '../liveboard/control.js';
import { startLiveboard, type Liveboard } from '../liveboard/server.js';
import { TailRings } from '../liveboard/tail.js';

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
  // History, agents and sessions, shared by every zodexd of this user (observability only).
  store: Store;
  serverId: string;
  // The control socket (<stateDir>/run/<serverId>.sock): Liveboards tail, type into and kill
  // this process's sessions through it.
  control: ControlServer;
  // Resolves once the control socket and, with --liveboard, the Liveboard listen; rejects when
  // the Liveboard cannot (the control socket only warns).
  ready: Promise<void>;
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
  // The HTTP token and the publisher's secrets never reach a command; the write mode governs GitHub tokens.
  const policy = commandPolicy(config.writeMode, ['ZODEX_AUTH_TOKEN']);
  const shell = config.mode === 'local' ? captureLoginEnvironment(shellPath, policy) : Promise.resolve(serverEnvironment(shellPath, policy));
  const spill = new SpillStore({ parentDir: config.spillDir, capBytes: config.spillCapBytes, maxAgeMs: config.spillMaxAgeMs });
  spill.startCleanup(log);
  const store = openStore({ stateDir: config.stateDir, warn: log });
  const serverId = store.registerServer({ transport: config.transport, pid: process.pid, mode: config.mode });
  const tails = new TailRings();
  const engine = new ExecEngine(
    {
      spawnHelper,
      shell,
      limits: { inlineBytes: config.inlineLimitBytes, previewBytes: config.previewBytes, headBytes: config.headBytes, tailBytes: config.tailFileBytes },
      spill,
      maxSessions: config.maxSessions,
      unreportedRetentionMs: UNREPORTED_RETENTION_MS,
      cols: TERMINAL_COLS,
      rows: TERMINAL_ROWS,
      standby: true,
      log,
    },
    {
      onSessionStart: (session) => {
        tails.track(session);
        store.sessionStarted({ sessionId: session.id, agentId: session.agentId ?? '', serverId, pid: session.pid, cmd: session.cmd, cwd: session.cwd });
      },
      onSessionEnd: (session) => store.sessionEnded(session.id, { exitCode: session.end?.exitCode, terminationReason: session.end?.reason }),
    },
  );
  const control = startControlServer({ sessions: () => engine.list(), store, serverId, stateDir: config.stateDir, tails, log });
  // The Liveboard acts through control sockets, its own process's included: one code path.
  const liveboard: Promise<Liveboard | undefined> = config.liveboard
    ? control.ready.then(() =>
        startLiveboard({ store, stateDir: config.stateDir, listen: config.liveboard!, allowHosts: config.allowHosts, token: config.authToken, log }),
      )
    : Promise.resolve(undefined);
  return {
    config,
    engine,
    spill,
    shell,
    store,
    serverId,
    control,
    ready: liveboard.then(() => undefined),
    log,
    async close() {
      spill.stop();
      await liveboard.then((board) => board?.close(), () => undefined);
      await engine.shutdown();
      await control.close();
      store.close();
    },
  };
}
