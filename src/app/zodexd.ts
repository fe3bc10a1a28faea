// zodexd, composed: argv and environment -> Config -> (stdio) stdin held by the front, which
// answers server/discover at once -> import() of the rest (serve.ts: runtime, transport, stop
// signals). Only what parsing and the front need is loaded before the first answer. Usage errors
// print one line to stderr and exit 2, with nothing on stdout; any other failure to start exits 1
// and leaves nothing behind. Once the Config is known, so are the secret values (app/secrets.ts):
// from then on no log line shows one.

import type { SecretRegistry } from '../secrets.js';
import { holdStdio } from '../transport/stdio/front.js';
import { ConfigUsageError } from './config/errors.js';
import { logFormatOf, parseCli } from './config/parse.js';
import { createLogger, type Log } from '../log.js';
import { USAGE } from './config/usage.js';
import { serverOptions } from './options.js';
import { concealSecrets, startSecrets } from './secrets.js';
import { terminalHint } from './terminal-hint.js';
import { VERSION } from './version.js';

export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

// The values no log line may show; filled once the Config is known.
let secrets: SecretRegistry | undefined;
const redact = (text: string) => (secrets ? secrets.redactText(text) : text);
let log: Log = createLogger({ format: 'text', write: (line) => process.stderr.write(line), redact });

async function main(argv: string[]): Promise<void> {
  log = createLogger({ format: logFormatOf(argv), write: (line) => process.stderr.write(line), redact });
  let request;
  try {
    request = parseCli(argv);
  } catch (error) {
    if (error instanceof ConfigUsageError) {
      log(error.message, { level: 'error' });
      process.exit(EXIT_USAGE);
    }
    throw error;
  }
  if (request.kind === 'help') return void process.stdout.write(USAGE);
  if (request.kind === 'version') return void process.stdout.write(`zodexd ${VERSION}\n`);
  const { config } = request;
  const known = startSecrets(config, process.env);
  secrets = known.secrets;
  for (const notice of [...config.notices, ...known.warnings]) log(notice);
  const seenClients = new Set<string>();
  let front;
  if (config.transport === 'stdio') {
    if (process.stdin.isTTY) for (const line of terminalHint()) log(line);
    front = holdStdio({
      input: process.stdin,
      output: process.stdout,
      maxMessageBytes: config.maxBodyBytes,
      discover: serverOptions(config),
      seenClients,
      log,
    });
  }
  // After the front (server/discover is answered meanwhile), before anything is started.
  concealSecrets(process.env);
  const { start } = await import('./serve.js');
  await start(config, { log, secrets: known.secrets, seenClients, ...(front ? { front } : {}) });
}

export function runZodexd(argv: string[]): void {
  main(argv).catch((error: unknown) => {
    log(error instanceof Error ? error.message : String(error), { level: 'error' });
    process.exit(EXIT_FAILURE);
  });
}
