// `zodex liveboard`: the operator's web page on its own, for every zodexd of this user that keeps
// its state in the same directory (zodexd --liveboard serves the same page in-process).
// Flow: argv + env -> parseLiveboardArgs (defaults and checks) -> the store -> startLiveboard ->
// wait for SIGINT/SIGTERM -> close. Sessions are acted on through each zodexd's control socket.

import { setting, ConfigUsageError } from '../../app/config/errors.js';
import { loadToken, resolveStateDir } from '../../app/config/sources.js';
import { concealSecrets } from '../../app/secrets.js';
import { onStopSignals } from '../../app/lifecycle.js';
import { liveboardBindProblem, parseAllowHost, parseListen, type ListenAddress } from '../../net/address.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from './command.js';
import { parseFlags } from './format.js';
import { escapeControls } from '../../errors.js';

// Beside zodexd's default MCP port 7391.
export const DEFAULT_LIVEBOARD_LISTEN = '127.0.0.1:7392';

export const usage = `Usage: zodex liveboard [--listen HOST:PORT] [--state-dir DIR] [--allow-host HOST]... [--auth-token-file PATH]

Serves the Liveboard: every zodexd of this user (same state directory), its agents and their
aliases (editable), each agent's timeline, and running sessions with a live output tail, an
input box and a kill button. Runs until SIGINT/SIGTERM.

  --listen HOST:PORT       where to serve (default ${DEFAULT_LIVEBOARD_LISTEN}; port 0 = any free port;
                           wildcards are refused; a non-loopback HOST needs a token)
  --state-dir DIR          the state directory of the zodexd processes to show
                           (default $XDG_STATE_HOME/zodex)
  --allow-host HOST        admit this Host header on a loopback bind (e.g. behind a tunnel); repeatable
  --auth-token-file PATH   require this token: open http://HOST:PORT/?token=TOKEN once, the page
                           then keeps an HttpOnly cookie                [env ZODEX_AUTH_TOKEN]
  -h, --help               this text
`;

const flags = {
  listen: { type: 'string' },
  'state-dir': { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'auth-token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface LiveboardSettings {
  listen: ListenAddress;
  stateDir: string;
  allowHosts: string[];
  token: string | undefined;
}

export function parseLiveboardArgs(argv: string[], env: NodeJS.ProcessEnv): { kind: 'help' } | { kind: 'run'; settings: LiveboardSettings } {
  const values = parseFlags(argv, flags);
  if (values.help) return { kind: 'help' };
  const listen = setting(() => parseListen(values.listen ?? DEFAULT_LIVEBOARD_LISTEN, '--listen'));
  const allowHosts = [...new Set((values['allow-host'] ?? []).map((value) => setting(() => parseAllowHost(value))))];
  const token = loadToken(values['auth-token-file'], env);
  const problem = liveboardBindProblem(listen, token, '--listen');
  if (problem) throw new ConfigUsageError(problem);
  return { kind: 'run', settings: { listen, stateDir: resolveStateDir(values['state-dir'], env), allowHosts, token } };
}

export async function run(argv: string[], io: CliIo): Promise<number> {
  // One inert line each, whatever an agent or a client put in it (errors.ts escapeControls).
  const log = (line: string) => io.stderr(`zodex liveboard: ${escapeControls(line)}\n`);
  const request = parseLiveboardArgs(argv, io.env);
  if (request.kind === 'help') {
    io.stdout(usage);
    return EXIT_OK;
  }
  const { settings } = request;
  // The token is read: out of the environment a same-user process could read in /proc.
  try {
    concealSecrets(io.env);
  } catch (error) {
    log((error as Error).message);
    return EXIT_FAILURE;
  }
  // Loaded here, not at the top: `zodex liveboard --help` needs neither SQLite nor the server.
  const [{ openStore }, { startLiveboard }] = await Promise.all([import('../../features/store/index.js'), import('../../features/liveboard/server.js')]);
  // Creates the database if no zodexd has yet; a failing one is one warning, shown on the page too.
  const store = openStore({ stateDir: settings.stateDir, warn: (message) => log(`warning: ${message}`) });
  let board;
  try {
    board = await startLiveboard({ ...settings, store, log });
  } catch (error) {
    store.close();
    log((error as Error).message);
    return EXIT_FAILURE;
  }
  await new Promise<void>((resolve) => {
    const stop = onStopSignals(['SIGINT', 'SIGTERM'], () => {
      stop();
      resolve();
    });
  });
  await board.close();
  store.close();
  return EXIT_OK;
}
