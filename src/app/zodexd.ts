// zodexd, composed: argv and environment -> Config -> (stdio) stdin held by the front, which
// answers server/discover at once -> import() of the rest (serve.ts: runtime, transport, stop
// signals). Only what parsing and the front need is loaded before the first answer. Usage errors
// print one line to stderr and exit 2, with nothing on stdout; any other failure to start exits 1
// and leaves nothing behind.

import { holdStdio } from '../transport/stdio-front.js';
import { UsageError } from './config/errors.js';
import { logFormatOf, parseCli } from './config/parse.js';
import { createLogger, type Log } from '../log.js';
import { USAGE } from './config/usage.js';
import { serverOptions } from './options.js';
import { terminalHint } from './terminal-hint.js';
import { VERSION } from './version.js';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

// The token, once read, is never written on a line (a safety net: nothing logs it on purpose).
const secrets: string[] = [];
let log: Log = createLogger({ format: 'text', write: (line) => process.stderr.write(line) });

async function main(argv: string[]): Promise<void> {
  log = createLogger({ format: logFormatOf(argv), write: (line) => process.stderr.write(line), secrets: () => secrets });
  let request;
  try {
    request = parseCli(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      log(error.message, { level: 'error' });
      process.exit(EXIT_USAGE);
    }
    throw error;
  }
  if (request.kind === 'help') return void process.stdout.write(USAGE);
  if (request.kind === 'version') return void process.stdout.write(`zodexd ${VERSION}\n`);
  const { config } = request;
  if (config.authToken !== undefined) secrets.push(config.authToken);
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
    log(error instanceof Error ? error.message : String(error), { level: 'error' });
    process.exit(EXIT_FAILURE);
  });
}
