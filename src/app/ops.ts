// --ops-listen, wired: the ops feature is imported only when asked for (Sprite mode without it
// never loads prom-client); its metrics' observer goes into the runtime; its listener starts as
// soon as the runtime exists (ready: 503 "starting") and reads the server's phase. Flow:
// openOps(config) -> observer into createRuntime -> listen(runtime) -> serving() once the MCP
// listener is bound -> draining() the moment a stop signal arrives -> close() last.

import type { Log } from '../log.js';
import type { Observer } from '../observe.js';
import type { Config } from './config/defaults.js';
import type { Runtime } from './runtime.js';
import { VERSION } from './version.js';

export type Phase = 'starting' | 'serving' | 'draining';

// What the gauges read from the transport, once it serves.
export interface ServedCounts {
  httpSessions(): number;
  agents(): number;
}

export interface OpsWiring {
  observer: Observer;
  listen(runtime: Runtime): Promise<void>;
  serving(counts: ServedCounts): void;
  draining(): void;
  close(): Promise<void>;
}

// tools: the names of the tools served (app/tools.ts), each counted from the start.
export async function openOps(config: Config, log: Log, tools: readonly string[]): Promise<OpsWiring | undefined> {
  const listen = config.opsListen;
  if (!listen) return undefined;
  const ops = await import('../features/ops/index.js');
  const metrics = ops.createMetrics({ version: VERSION, mode: config.mode, transport: config.transport, tools });
  let phase: Phase = 'starting';
  let counts: ServedCounts = { httpSessions: () => 0, agents: () => 0 };
  let shellSettled = false;
  let listener: Awaited<ReturnType<typeof ops.startOpsListener>> | undefined;
  return {
    observer: metrics.observer,
    async listen(runtime) {
      // Local mode: the first command waits for the login shell's environment; ready waits too.
      void runtime.shell.then(
        () => (shellSettled = true),
        () => (shellSettled = true),
      );
      metrics.setProbes({
        runningCommands: () => runtime.engine.running,
        httpSessions: () => counts.httpSessions(),
        agents: () => counts.agents(),
        spill: () => runtime.spill.diskUsage(),
        draining: () => phase === 'draining',
      });
      listener = await ops.startOpsListener({
        listen,
        allowHosts: config.allowHosts,
        log,
        state: {
          unhealthy: () => (runtime.engine.accepting || phase === 'draining' ? undefined : 'the engine has shut down'),
          notReady: () => (phase !== 'serving' ? phase : !shellSettled ? 'starting: capturing the login shell environment' : undefined),
          metrics: () => metrics.render(),
        },
      });
    },
    serving(served) {
      counts = served;
      if (phase === 'starting') phase = 'serving';
    },
    draining() {
      phase = 'draining';
    },
    close: async () => listener?.close(),
  };
}
