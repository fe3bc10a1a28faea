// Everything one zodexd process shares across conversations, built once at start from the Config:
// the bounds, the spill store, the captured shell environment, the exec engine, the history store,
// the control socket and (with --liveboard) the Liveboard, each from its own options (options.ts),
// and the features plugged into the server's seams: the store as its recorder, the publisher's
// command variables, zodex_context and set_agent_alias in Local mode (loaded only then), the
// bounds' patch guard. Closed once at exit, in the order lifecycle.ts runs: kill commands, then
// close the rest.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExecEngine } from '../exec/engine.js';
import { captureLoginEnvironment, chooseShell, serverEnvironment, type ShellSetup } from '../exec/environment.js';
import { SpillStore } from '../exec/output/spill.js';
import { patchBoundary } from '../features/bounds/patch.js';
import { prepareBounds } from '../features/bounds/prepare.js';
import { startControlServer, type ControlServer } from '../features/liveboard/control.js';
import type { Liveboard } from '../features/liveboard/server.js';
import { TailRings } from '../features/liveboard/tail.js';
import { agentCommandEnv } from '../features/publisher/paths.js';
import { openStore, type Store } from '../features/store/index.js';
import type { Log } from '../log.js';
import { NO_OBSERVER, type Observer } from '../observe.js';
import type { SecretRegistry } from '../secrets.js';
import type { ServerRuntime } from '../server/options.js';
import type { ResultContext } from '../server/seams.js';
import type { Config } from './config/defaults.js';
import { engineOptions, serverOptions, spillOptions } from './options.js';
import { addEnvironmentSecrets, unmatchedRedactNames } from './secrets.js';
import type { ServedTools } from './tools.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Runtime extends ServerRuntime {
  // The values no output, result, record or log line shows (grown by OAuth as it mints tokens).
  secrets: SecretRegistry;
  store: Store; // the recorder, and what the control socket and the Liveboard read
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

// secrets: the values no output, result, history row or log line shows. tools: what is served
// (app/tools.ts). observer: hears tool calls and commands (--ops-listen's metrics); none: nobody does.
export async function createRuntime(config: Config, log: Log, secrets: SecretRegistry, tools: ServedTools, observer: Observer = NO_OBSERVER): Promise<Runtime> {
  const spawnHelper = spawnHelperPath();
  try {
    fs.accessSync(spawnHelper, fs.constants.X_OK);
  } catch {
    throw new Error(`the PTY helper ${spawnHelper} is missing or not executable; run \`npm ci\` (or \`npm run build\`) to build it`);
  }
  const chosen = config.shell ? { shell: config.shell, from: '--shell' } : chooseShell(config.mode);
  const shellPath = chosen.shell;
  log(`shell: ${shellPath} (${chosen.from})`);
  // First, before any command can run: what confines them (refuses to start when it cannot).
  const bounds = await prepareBounds(config, { spawnHelper, shell: shellPath, log, secrets });
  for (const line of bounds.describe) log(line);
  const policy = bounds.environment;
  // The login shell's environment may hold more secrets (an rc file exporting a token): they are
  // known before any command starts, since every command waits for the captured environment.
  const onCapture = (env: Readonly<Record<string, string>>) => {
    for (const warning of addEnvironmentSecrets(secrets, config.redactEnv, env, "the login shell's environment")) log(warning);
    for (const name of unmatchedRedactNames(config.redactEnv, [process.env, env]))
      log(`--redact-env ${name}: no such variable in zodexd's or the login shell's environment`);
  };
  const capture =
    config.mode === 'local' ? captureLoginEnvironment(shellPath, policy, { log, onCapture, ...(bounds.runner ? { runner: bounds.runner } : {}) }) : undefined;
  if (!capture) for (const name of unmatchedRedactNames(config.redactEnv, [process.env])) log(`--redact-env ${name}: no such variable in zodexd's environment`);
  const shell = (capture?.setup ?? Promise.resolve(serverEnvironment(shellPath, policy))).then((setup) => bounds.finish(setup));
  shell.catch(() => {}); // a refusal (bounds.finish) reaches each command that awaits it, and the log
  const spill = new SpillStore(spillOptions(config));
  spill.startCleanup(log);
  const redact = (text: string) => secrets.redactText(text);
  const store = openStore({ stateDir: config.stateDir, warn: log, redact });
  const serverId = store.registerServer({ transport: config.transport, pid: process.pid, mode: config.mode });
  const newContext = await resultContexts(config);
  const tails = new TailRings();
  const engine = new ExecEngine(engineOptions(config, { spawnHelper: bounds.spawnHelper, shell, spill, log, secrets, refusals: bounds.refusals }), {
    onSessionStart: (session) => {
      observer.commandStarted();
      tails.track(session);
      store.sessionStarted({ sessionId: session.id, agentId: session.agentId ?? '', serverId, pid: session.pid, cmd: session.cmd, cwd: session.cwd });
    },
    onSessionEnd: (session) => {
      observer.commandEnded(session.end?.reason ?? 'killed');
      if (session.end?.networkRefused) observer.sandboxRefused('network', session.end.networkRefused);
      if (session.writeRefusals > 0) observer.sandboxRefused('write', session.writeRefusals);
      store.sessionEnded(session.id, { exitCode: session.end?.exitCode, terminationReason: session.end?.reason });
    },
  });
  const control = startControlServer({ sessions: () => engine.list(), store, serverId, stateDir: config.stateDir, tails, log });
  // The Liveboard acts through control sockets, its own process's included: one code path.
  const board = config.liveboard;
  const liveboard: Promise<Liveboard | undefined> = board
    ? control.ready
        .then(() => import('../features/liveboard/server.js')) // loaded only when asked for
        .then(({ startLiveboard }) =>
          startLiveboard({ store, stateDir: config.stateDir, listen: board, allowHosts: config.allowHosts, token: config.authToken, log }),
        )
    : Promise.resolve(undefined);
  let killing: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const killCommands = () => (killing ??= engine.shutdown());
  return {
    options: serverOptions(config),
    secrets,
    redact,
    engine,
    spill,
    shell,
    store,
    recorder: store,
    serverId,
    extraTools: tools.extra(store),
    ...(newContext ? { newContext } : {}),
    commandEnv: agentCommandEnv,
    control,
    patches: patchBoundary(bounds.patches),
    ready: liveboard.then(() => undefined),
    log,
    observer,
    killCommands,
    close: () =>
      (closing ??= (async () => {
        spill.stop();
        capture?.stop();
        await liveboard.then(
          (started) => started?.close(),
          () => undefined,
        );
        await killCommands();
        await control.close();
        store.close();
        bounds.close();
      })()),
  };
}

// zodex_context in Local mode (features/context, loaded only then): each conversation its own.
async function resultContexts(config: Config): Promise<(() => ResultContext) | undefined> {
  if (config.mode !== 'local') return undefined;
  const { ConversationContext } = await import('../features/context/tracker.js');
  return () => new ConversationContext(config.context);
}
