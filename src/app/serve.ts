// The heavy half of zodexd's start, loaded by app/zodexd.ts with import() once the Config is
// known (and, over stdio, once stdin is held): the ops listener's metrics (with --ops-listen), the
// runtime, the conversation factory, the 2026-07-28 server and the chosen transport, then the stop
// signals. HTTP loads only for HTTP, OAuth only with --oauth, the ops feature only with
// --ops-listen, and the Local-mode tools only in Local mode (tools.ts).

import type { OAuth } from '../features/oauth/index.js';
import type { Log } from '../log.js';
import type { SecretRegistry } from '../secrets.js';
import type { Serving } from '../transport/serving.js';
import type { StdioFront } from '../transport/stdio/front.js';
import { serveStdio } from '../transport/stdio/serve.js';
import { Rev2026Server } from '../server/rev2026-07-28/dispatch.js';
import type { Config } from './config/defaults.js';
import { conversationFactory } from './conversations.js';
import { HTTP_STOP_SIGNALS, once, onStopSignals, STDIO_STOP_SIGNALS, stopHttp, stopStdio } from './lifecycle.js';
import { httpOptions, oauthOptions } from './options.js';
import { openOps, type OpsWiring } from './ops.js';
import { createRuntime, type Runtime } from './runtime.js';
import { servedTools } from './tools.js';

export interface Started {
  log: Log; // redacts known secret values itself
  secrets: SecretRegistry;
  front?: StdioFront; // stdio: stdin as read since the process began
  seenClients: Set<string>; // 2026-07-28-era clients already logged (by the front)
}

export async function start(config: Config, started: Started): Promise<void> {
  const tools = await servedTools(config.mode);
  const ops = await openOps(config, started.log, tools.names);
  const runtime = await createRuntime(config, started.log, started.secrets, tools, ops?.observer);
  try {
    // A Liveboard or ops listener that cannot listen is fatal (it was asked for), as is an MCP
    // listener that cannot.
    await ops?.listen(runtime);
    await runtime.ready;
    await serve(config, runtime, started, ops);
  } catch (error) {
    await runtime.close().catch(() => undefined);
    await ops?.close();
    throw error;
  }
}

async function serve(config: Config, runtime: Runtime, { log, front, seenClients }: Started, ops: OpsWiring | undefined): Promise<void> {
  // The 2026-07-28 era, beside the conversations: agents from _meta, commands owned by handles.
  const rev2026 = new Rev2026Server(runtime, {
    maxAgents: config.maxConversations,
    handleIdleMs: config.handleIdleMs,
    seenClients,
    ...(config.transport === 'stdio' ? { env: process.env } : {}),
  });
  // 2025-11-25 conversations find the agent their calls' _meta names in the same table.
  const open = conversationFactory(runtime, rev2026.agents);
  if (config.transport === 'http') {
    const { serveHttp } = await import('../transport/http/serve.js');
    const hasRunningCommand = (id: string) => runtime.engine.list().some((session) => session.owner === id && !session.hasEnded);
    const oauth = config.oauth.enabled ? await openOAuth(config, runtime) : undefined;
    const serving = await serveHttp(httpOptions(config, { open, rev2026, hasRunningCommand, log, ...(oauth ? { authenticator: oauth } : {}) }));
    ops?.serving({ httpSessions: () => serving.sessions, agents: () => rev2026.agents.size });
    // Revoking a grant cuts its client off: its sessions, its calls in flight, its commands.
    oauth?.onRevoked((grantId) => {
      const sessions = serving.endPrincipal(grantId);
      const commands = rev2026.endPrincipal(grantId);
      log(`oauth: grant ${grantId} was revoked: ${sessions} session(s) ended, ${commands} command(s) killed`);
    });
    onStopSignals(
      HTTP_STOP_SIGNALS,
      once((signal) => {
        ops?.draining(); // readiness turns 503 in the signal's own turn, as newcomers get 503
        return stopHttp(serving, closing(runtime, ops), signal, config.drainMs);
      }),
    );
    return;
  }
  // Assigned before any stop can run: signals and stream events arrive on later turns.
  let serving: Promise<Serving> | undefined;
  const stop = once(async (why) => {
    ops?.draining();
    if (why !== 'stdin closed') log(`stopping: ${why}`);
    await stopStdio(serving!, closing(runtime, ops));
  });
  onStopSignals(STDIO_STOP_SIGNALS, stop);
  const held = front?.handOff();
  serving = serveStdio({
    input: process.stdin,
    output: process.stdout,
    maxMessageBytes: config.maxBodyBytes,
    open,
    rev2026,
    log,
    onEnd: stop,
    ...(held ? { held } : {}),
  });
  await serving;
  ops?.serving({ httpSessions: () => 0, agents: () => rev2026.agents.size });
}

// --oauth (features/oauth, loaded only then): its state fails closed, so a database that cannot be
// opened stops the start.
async function openOAuth(config: Config, runtime: Runtime): Promise<OAuth> {
  const [{ createOAuth }, { OAuthStore }] = await Promise.all([import('../features/oauth/index.js'), import('../features/store/oauth.js')]);
  return createOAuth(oauthOptions(config, { store: OAuthStore.open(config.stateDir), log: runtime.log, secrets: runtime.secrets }));
}

// The runtime as the stop sequence sees it: its close also closes the ops listener, last.
function closing(runtime: Runtime, ops: OpsWiring | undefined): Pick<Runtime, 'killCommands' | 'close'> {
  return {
    killCommands: () => runtime.killCommands(),
    close: async () => {
      await runtime.close();
      await ops?.close();
    },
  };
}
