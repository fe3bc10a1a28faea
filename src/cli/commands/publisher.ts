// `zodex publisher`: the operator starts the publisher daemon, which alone holds the GitHub write
// token and serves zodex-agent over a private unix socket until SIGINT/SIGTERM.
// Flow: argv + env -> parsePublisherArgs (every default and check, one place; the token is taken
// out of the environment here) -> startPublisherDaemon (socket opened, handed to --user) ->
// dropPrivileges (--user) -> open the history -> wait for a signal -> close.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveWriteMode, WRITE_MODE_ENV, type WriteMode } from '../../bounds/modes.js';
import { parsePublisherConfig, loadPublisherConfig, type PublisherConfig } from '../../features/publisher/config.js';
import { dropPrivileges, lookupGroup, lookupUser, type Account } from '../../features/publisher/accounts.js';
import { startPublisherDaemon } from '../../features/publisher/daemon.js';
import { PublisherError } from '../../features/publisher/errors.js';
import type { PublicationLog } from '../../features/publisher/history.js';
import { defaultPublisherSocket, PUBLISHER_SECRET_ENV, PUBLISHER_SOCKET_ENV, PUBLISHER_TOKEN_ENV } from '../../features/publisher/paths.js';
import { SAME_USER_FLAG } from '../../features/publisher/peers.js';
import { readTokenFile, takeTokenFromEnv, type Secret } from '../../features/publisher/token.js';
import { concealProcess, loadNativeAddon } from '../../native.js';
import { loadDatabaseDriver, openStore } from '../../features/store/index.js';
import { mkdirpSync } from '../../fsutil.js';
import { CliUsageError, EXIT_FAILURE, EXIT_OK, type CliIo } from './command.js';
import { resolveStateDir } from '../../app/config/sources.js';
import { onStopSignals } from '../../app/lifecycle.js';
import { escapeControls } from '../../errors.js';

const require = createRequire(import.meta.url);
const VERSION: string = (require('../../../package.json') as { version: string }).version;

export const usage = `Usage: zodex publisher [options]

Runs the publisher daemon: it holds the GitHub write token and, on a private unix socket, pushes
branches and opens pull requests for \`zodex-agent github publish-pr\` (and \`github push\` in
direct mode). The token never reaches zodexd, exec_command sessions, their output or the logs,
but it is withheld only from an agent running as ANOTHER user: a client of the publisher's own
user is refused (it could read the token file or the daemon's memory) unless you pass
${SAME_USER_FLAG}.

  --write-mode MODE    the same setting as zodexd's, which must agree (zodexd refuses to start,
                       and the publisher refuses requests, when they differ): publish-pr
                       (default): push a topic branch and open a PR;  direct: also push to any
                       branch, never forced;  read-only: refuse every write
                                                                          [env ${WRITE_MODE_ENV}]
  --token-file PATH    the GitHub token; the file must be ours and mode 0600 or stricter
                                                                          [env ${PUBLISHER_TOKEN_ENV}]
  --config PATH        JSON: allowedRemotes, protectedBranches, apiBase, gitBase, defaultRemote,
                       gitConfig (required for publish-pr and direct)
  --socket PATH        where to listen (default $XDG_RUNTIME_DIR/zodex/publisher.sock, else
                       /tmp/zodex-UID/publisher/publisher.sock; its folder must be 0700)
                                                                          [env ${PUBLISHER_SOCKET_ENV}]
  --api-base URL       GitHub REST base, e.g. https://ghe.example.com/api/v3 (overrides the config;
                       default https://api.github.com)
  --state-dir DIR      history and the staging repository (default $XDG_STATE_HOME/zodex)
  --user NAME          start as root, read the token, open the socket, then run as NAME
                       (setgroups, setgid, setuid); needs --socket and --state-dir of NAME's
  --socket-group GROUP members of GROUP (the agent's user) may connect: socket 0660, folder 0710
  ${SAME_USER_FLAG}
                       also serve clients of the publisher's own user, who can then read the
                       token; for a single-user machine that accepts this
  -h, --help           this text

Config example:
  { "allowedRemotes": [ { "repo": "acme/widgets" }, { "url": "/srv/git/tools.git", "repo": "acme/tools" } ],
    "protectedBranches": ["main", "master", "release/*"] }
`;

export interface PublisherSettings {
  mode: WriteMode;
  token: Secret | undefined;
  tokenFile: string | undefined;
  config: PublisherConfig;
  socketPath: string;
  stateDir: string;
  allowSameUser: boolean;
  user?: Account;
  socketGroup?: number;
}

const flagSpec = {
  'write-mode': { type: 'string' },
  mode: { type: 'string' },
  'token-file': { type: 'string' },
  config: { type: 'string' },
  socket: { type: 'string' },
  'api-base': { type: 'string' },
  'state-dir': { type: 'string' },
  user: { type: 'string' },
  'socket-group': { type: 'string' },
  [SAME_USER_FLAG.slice(2)]: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

// A bad token file or config is a mistake on the command line: exit 2 with its code and fix.
function asUsage<T>(body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof PublisherError) throw new CliUsageError(`${error.code}: ${error.message}`);
    throw error;
  }
}

// argv + env -> settings, or a CliUsageError / PublisherError saying what to fix. Removes
// the publisher's secret variables from `env` (pass process.env) whatever happens.
export function parsePublisherArgs(argv: string[], env: NodeJS.ProcessEnv): { kind: 'help' } | { kind: 'run'; settings: PublisherSettings } {
  const envToken = takeTokenFromEnv(env);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: flagSpec, strict: true, allowPositionals: false });
  } catch (error) {
    throw new CliUsageError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const flags = parsed.values;
  if (flags.help) return { kind: 'help' };
  if (flags.mode !== undefined) throw new CliUsageError('--mode is now --write-mode, the one setting zodexd reads too; write --write-mode publish-pr');
  let mode: WriteMode;
  try {
    mode = resolveWriteMode(flags['write-mode'], env).mode;
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  if (flags['token-file'] !== undefined && envToken) {
    throw new CliUsageError(`both --token-file and ${PUBLISHER_TOKEN_ENV} are set; give the token one way only`);
  }
  const token = flags['token-file'] !== undefined ? asUsage(() => readTokenFile(flags['token-file'] as string)) : envToken;
  if (mode !== 'read-only' && !token) {
    throw new CliUsageError(`--write-mode ${mode} needs the GitHub token: pass --token-file PATH (mode 0600) or set ${PUBLISHER_TOKEN_ENV}`);
  }
  if (mode !== 'read-only' && flags.config === undefined) {
    throw new CliUsageError(`--write-mode ${mode} needs --config PATH naming the allowedRemotes the publisher may write to`);
  }
  const config = asUsage(() =>
    flags.config !== undefined ? loadPublisherConfig(flags.config, flags['api-base']) : parsePublisherConfig({}, 'defaults', flags['api-base']),
  );
  if (mode !== 'read-only' && config.allowedRemotes.length === 0) {
    throw new CliUsageError(`--config ${flags.config} lists no allowedRemotes, so --write-mode ${mode} could publish nothing; add at least one`);
  }
  let user: Account | undefined;
  if (flags.user !== undefined) {
    if (process.getuid?.() !== 0)
      throw new CliUsageError(`--user ${flags.user} needs the publisher to start as root (it drops to that user after reading the token)`);
    if (flags.socket === undefined || flags['state-dir'] === undefined) {
      throw new CliUsageError(`--user needs --socket PATH and --state-dir DIR: the defaults are root's folders, which ${flags.user} cannot use`);
    }
    user = asUsage(() => lookupUser(flags.user as string));
  }
  const socketGroup = flags['socket-group'] === undefined ? undefined : asUsage(() => lookupGroup(flags['socket-group'] as string));
  const socketPath = path.resolve(flags.socket ?? (env[PUBLISHER_SOCKET_ENV] || defaultPublisherSocket(env)));
  const stateDir = resolveStateDir(flags['state-dir'], env);
  const allowSameUser = flags[SAME_USER_FLAG.slice(2) as 'allow-same-user-token-readable'] === true;
  return {
    kind: 'run',
    settings: {
      mode,
      token,
      tokenFile: flags['token-file'] === undefined ? undefined : path.resolve(flags['token-file']),
      config,
      socketPath,
      stateDir,
      allowSameUser,
      ...(user ? { user } : {}),
      ...(socketGroup !== undefined ? { socketGroup } : {}),
    },
  };
}

// History: every publication becomes a row of the state database's publications table. The store
// never throws; if the database fails it warns once and stops recording.
function storePublicationLog(stateDir: string, warn: (message: string) => void): PublicationLog & { close(): void } {
  const store = openStore({ stateDir, warn });
  return { record: (row) => store.recordPublication(row), close: () => store.close() };
}

// --user: what the daemon would otherwise load after the drop from the folder zodex is installed
// in, which NAME may not be able to enter (a checkout under /root, 0700): the native addon (who
// connected; without it every client is refused, so a missing one stops the start, naming its
// path) and SQLite's driver (the history, which only warns when it fails). Both stay loaded.
function loadBeforeDrop(allowSameUser: boolean): void {
  if (!allowSameUser) loadNativeAddon();
  try {
    loadDatabaseDriver();
  } catch {
    // the history warns and stays off, as it would without --user
  }
}

// After the drop: NAME keeps its history and staging repository in --state-dir, so it must be able
// to make and use it; otherwise the start is refused, naming the folder.
function checkStateDir(stateDir: string, user: Account): void {
  try {
    mkdirpSync(stateDir, 0o700);
    fs.accessSync(stateDir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    throw new PublisherError(
      'BAD_CONFIG',
      `--state-dir ${stateDir} cannot be used by ${user.name} (${(error as NodeJS.ErrnoException).code ?? 'failed'}); give ${user.name} a folder of its own, e.g. \`install -d -m 0700 -o ${user.name} ${stateDir}\``,
    );
  }
}

// `zodex publisher ARGS`: resolves with the exit code, 0 after a clean SIGINT/SIGTERM stop. Pass
// process.env as io.env: the token variable is removed from it before anything else starts.
export async function run(argv: string[], io: CliIo): Promise<number> {
  // One inert line each, whatever an agent or a client put in it (errors.ts escapeControls).
  const log = (line: string) => io.stderr(`zodex publisher: ${escapeControls(line)}\n`);
  const tokenInEnvironment = PUBLISHER_SECRET_ENV.some((name) => io.env[name] !== undefined);
  const request = parsePublisherArgs(argv, io.env);
  if (request.kind === 'help') {
    io.stdout(usage);
    return EXIT_OK;
  }
  const { settings } = request;
  // The token is in memory now: out of the environment (/proc/PID/environ too), and out of reach
  // of a debugger or /proc/PID/mem of our own uid. A token variable that cannot be erased stops
  // the start.
  try {
    concealProcess(PUBLISHER_SECRET_ENV);
  } catch (error) {
    if (tokenInEnvironment) {
      log(`cannot start: cannot erase ${PUBLISHER_TOKEN_ENV} from the environment, where processes of this user could read it: ${(error as Error).message}`);
      return EXIT_FAILURE;
    }
  }
  // The history is opened once the daemon runs as its final user (after --user's drop).
  let store: (PublicationLog & { close(): void }) | undefined;
  const publications: PublicationLog & { close(): void } = {
    record: (row) => (store ??= storePublicationLog(settings.stateDir, (message) => log(`warning: ${message}`))).record(row),
    close: () => store?.close(),
  };
  let daemon;
  try {
    const { user, socketGroup, allowSameUser, ...rest } = settings;
    daemon = await startPublisherDaemon({
      ...rest,
      publications,
      log,
      version: VERSION,
      peers: { allowSameUser },
      ...(socketGroup !== undefined ? { socketGroup } : {}),
      ...(user ? { owner: user } : {}),
    });
    if (user) {
      try {
        loadBeforeDrop(allowSameUser);
        dropPrivileges(user);
        checkStateDir(settings.stateDir, user);
      } catch (error) {
        await daemon.close().catch(() => undefined);
        throw error;
      }
      log(`running as ${user.name} (uid ${process.getuid?.()}, gid ${process.getgid?.()})`);
    }
    store = storePublicationLog(settings.stateDir, (message) => log(`warning: ${message}`));
  } catch (error) {
    publications.close();
    log(error instanceof PublisherError ? `${error.code}: ${error.message}` : `cannot start: ${(error as Error).message}`);
    return EXIT_FAILURE;
  }
  await new Promise<void>((resolve) => {
    const remove = onStopSignals(['SIGINT', 'SIGTERM'], (signal) => {
      remove();
      log(`${signal}: stopping`);
      resolve();
    });
  });
  await daemon.close();
  publications.close();
  return EXIT_OK;
}
