// zodexd, composed: argv and environment -> Config -> the runtime -> the chosen transport with
// a conversation factory -> the stop signals. Usage errors print one line to stderr and exit 2,
// with nothing on stdout; any other failure to start exits 1 and leaves nothing behind.

import { createOAuth } from '../oauth/index.js';
import { OAuthStore } from '../store/oauth.js';
import { serveHttp } from '../transport/http.js';
import { serveStdio } from '../transport/stdio.js';
import type { Serving } from '../transport/serving.js';
import type { Config } from './config/defaults.js';
import { UsageError } from './config/errors.js';
import { parseCli } from './config/parse.js';
import { USAGE } from './config/usage.js';
import { ModernServer } from '../server/modern/dispatch.js';
import { conversationFactory } from './conversations.js';
import { HTTP_STOP_SIGNALS, once, onStopSignals, STDIO_STOP_SIGNALS, stopHttp, stopStdio } from './lifecycle.js';
import { httpOptions, oauthOptions } from './options.js';
import { createRuntime, type Runtime } from './runtime.js';
import { terminalHint } from './terminal-hint.js';
import { VERSION } from './version.js';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

function log(message: string): void {
  process.stderr.write(`zodexd: ${message}\n`);
}

async function serve(config: Config, runtime: Runtime): Promise<void> {
  const open = conversationFactory(runtime);
  // The 2026-07-28 era, beside the conversations: agents from _meta, commands owned by handles.
  const modern = new ModernServer(runtime, { maxAgents: config.maxConversations, handleIdleMs: config.handleIdleMs, ...(config.transport === 'stdio' ? { env: process.env } : {}) });
  if (config.transport === 'http') {
    const hasRunningCommand = (id: string) => runtime.engine.list().some((session) => session.owner === id && !session.hasEnded);
    // --oauth: the OAuth state fails closed, so a database that cannot be opened stops the start.
    const oauth = config.oauth.enabled ? createOAuth(oauthOptions(config, { store: OAuthStore.open(config.stateDir), log })) : undefined;
    const serving = await serveHttp(httpOptions(config, { open, modern, hasRunningCommand, log, oauth }));
    onStopSignals(HTTP_STOP_SIGNALS, once((signal) => stopHttp(serving, runtime, signal, config.drainMs)));
    return;
  }
  if (process.stdin.isTTY) for (const line of terminalHint()) log(line);
  // Assigned before any stop can run: signals and stream events arrive on later turns.
  let serving: Promise<Serving> | undefined;
  const stop = once(async (why) => {
    if (why !== 'stdin closed') log(`stopping: ${why}`);
    await stopStdio(serving!, runtime);
  });
  onStopSignals(STDIO_STOP_SIGNALS, stop);
  serving = serveStdio({ input: process.stdin, output: process.stdout, maxMessageBytes: config.maxBodyBytes, open, modern, log, onEnd: stop });
  await serving;
}

async function main(argv: string[]): Promise<void> {
  let request;
  try {
    request = parseCli(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      log(error.message);
      process.exit(EXIT_USAGE);
    }
    throw error;
  }
  if (request.kind === 'help') return void process.stdout.write(USAGE);
  if (request.kind === 'version') return void process.stdout.write(`zodexd ${VERSION}\n`);
  const { config } = request;
  for (const notice of config.notices) log(notice);
  const runtime = createRuntime(config, log);
  try {
    // A Liveboard that cannot listen is fatal (it was asked for), as is an MCP listener that cannot.
    await runtime.ready;
    await serve(config, runtime);
  } catch (error) {
    await runtime.close().catch(() => undefined);
    throw error;
  }
}

export function runZodexd(argv: string[]): void {
  main(argv).catch((error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(EXIT_FAILURE);
  });
}
