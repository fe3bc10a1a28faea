#!/usr/bin/env node
// The zodexd entry: parse argv and environment, then serve over the chosen transport.
// Usage errors print one line to stderr and exit 2, with nothing on stdout. On a terminal,
// stdio says on stderr what it waits for and how a client connects.

import { createRuntime, VERSION } from '../server/runtime.js';
import { serveHttp } from '../transport/http.js';
import { serveStdio } from '../transport/stdio.js';
import { parseCli, UsageError, USAGE } from './config.js';
import { terminalHint } from './terminal-hint.js';

function log(message: string): void {
  process.stderr.write(`zodexd: ${message}\n`);
}

async function main(): Promise<void> {
  let request;
  try {
    request = parseCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      log(error.message);
      process.exit(2);
    }
    throw error;
  }
  if (request.kind === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (request.kind === 'version') {
    process.stdout.write(`zodexd ${VERSION}\n`);
    return;
  }
  const { config } = request;
  for (const notice of config.notices) log(notice);
  const runtime = createRuntime(config, log);
  // A Liveboard that cannot listen is fatal (it was asked for); nothing is left behind.
  await runtime.ready.catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  if (config.transport === 'http') await serveHttp(runtime);
  else {
    if (process.stdin.isTTY) for (const line of terminalHint()) log(line);
    await serveStdio(runtime);
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
