// Everything one zodexd process shares across conversations, built once at start from the Config:
// the spill store, the captured shell environment, the exec engine, the history store, the
// control socket and (with --liveboard) the Liveboard, each from its own options (options.ts).
// Closed once at exit, in the order lifecycle.ts runs: kill commands, then close the rest.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecEngine } from '../exec/engine.js';
import { captureLoginEnvironment, chooseShell, serverEnvironment, type ShellSetup } from '../exec/environment.js';
import { SpillStore } from '../exec/spill.js';
import { startControlServer, type ControlServer } from '../liveboard/control.js';
import type { Liveboard } from '../liveboard/server.js';
import { TailRings } from '../liveboard/tail.js';
import type { ServerRuntime } from '../server/options.js';
import { openStore } from '../store/index.js';
import type { Config } from './config/defaults.js';
import { engineOptions, environmentPolicy, serverOptions, spillOptions } from './options.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Runtime extends ServerRuntime {
  spill: SpillStore;
  shell: Promise<ShellSetup>;
  // The control socket (<stateDir>/run/<serverId>.sock): Liveboards tail, type into and kill
  // this process's sessions through it.
  control: ControlServer;
  // Resolves once the control socket and, with --liveboard, the Liveboard listen; rejects when
  // the Liveboard cannot (the control socket only warns).
  ready: Promise<void>;
  // Kills every command (each gets a moment to report its end); once.
  killCommands(): Promise<void>;
  // Kills what still runs, then closes the Liveboard, the control socket and the store; once.
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
  const chosen = config.shell ? { shell: config.shell, from: '--shell' } : chooseShell(config.mode);
  const shellPath = chosen.shell;
  log(`shell: ${shellPath} (${chosen.from})`);
  const policy = environmentPolicy(config);
  const capture = config.mode === 'local' ? captureLoginEnvironment(shellPath, policy, { log }) : undefined;
  const shell = capture?.setup ?? Promise.resolve(serverEnvironment(shellPath, policy));
  const spill = new SpillStore(spillOptions(config));
  spill.startCleanup(log);
  const store = openStore({ stateDir: config.stateDir, warn: log });
  const serverId = store.registerServer({ transport: config.transport, pid: process.pid, mode: config.mode });
  const tails = new TailRings();
  const engine = new ExecEngine(engineOptions(config, { spawnHelper, shell, spill, log }), {
    onSessionStart: (session) => {
      tails.track(session);
      store.sessionStarted({ sessionId: session.id, agentId: session.agentId ?? '', serverId, pid: session.pid, cmd: session.cmd, cwd: session.cwd });
    },
    onSessionEnd: (session) => store.sessionEnded(session.id, { exitCode: session.end?.exitCode, terminationReason: session.end?.reason }),
  });
  const control = startControlServer({ sessions: () => engine.list(), store, serverId, stateDir: config.stateDir, tails, log });
  // The Liveboard acts through control sockets, its own process's included: one code path.
  const board = config.liveboard;
  const liveboard: Promise<Liveboard | undefined> = board
    ? control.ready
        .then(() => import('../liveboard/server.js')) // loaded only when asked for
        .then(({ startLiveboard }) => startLiveboard({ store, stateDir: config.stateDir, listen: board, allowHosts: config.allowHosts, token: config.authToken, log }))
    : Promise.resolve(undefined);
  let killing: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const killCommands = () => (killing ??= engine.shutdown());
  return {
    options: serverOptions(config),
    engine,
    spill,
    shell,
    store,
    serverId,
    control,
    ready: liveboard.then(() => undefined),
    log,
    killCommands,
    close: () =>
      (closing ??= (async () => {
        spill.stop();
        capture?.stop();
        await liveboard.then((started) => started?.close(), () => undefined);
        await killCommands();
        await control.close();
        store.close();
      })()),
  };
}
