// zodexd, composed: argv and environment -> Config -> (stdio) stdin held by the front, which
// answers server/discover at once -> import() of the rest (serve.ts: runtime, transport, stop
// signals). Only what parsing and the front need is loaded before the first answer. Usage errors
// print one line to stderr and exit 2, with nothing on stdout; any other failure to start exits 1
// and leaves nothing behind.

import { escapeControls } from '../errors.js';
import { holdStdio } from '../transport/stdio-front.js';
import { UsageError } from './config/errors.js';
import { parseCli } from './config/parse.js';
import { USAGE } from './config/usage.js';
import { serverOptions } from './options.js';
import { terminalHint } from './terminal-hint.js';
import { VERSION } from './version.js';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

// Every diagnostic line: one line on stderr, whatever a message carries (a client's text inside
// it cannot move the cursor or start a line of its own).
function log(message: string): void {
  process.stderr.write(`zodexd: ${escapeControls(message)}\n`);
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
  const seenClients = new Set<string>();
  let front;
  if (config.transport === 'stdio') {
    if (process.stdin.isTTY) for (const line of terminalHint()) log(line);
    front = holdStdio({ input: process.stdin, output: process.stdout, maxMessageBytes: config.maxBodyBytes, discover: serverOptions(config), seenClients, log });
  }
  const { start } = await import('./serve.js');
  await start(config, { log, seenClients, ...(front ? { front } : {}) });
}

export function runZodexd(argv: string[]): void {
  main(argv).catch((error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    process.exit(EXIT_FAILURE);
  });
}
