// argv + environment -> a validated Config, or a ConfigUsageError naming the flag and the fix.
// All defaults are applied here, in one place (values in defaults.ts, address rules in net/);
// every rule about which flags go together is checked here, before anything starts.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CONTEXT_FLAG_OPTIONS, ContextConfigError, contextFlagsFrom, loadContextOptions, type ContextOptions } from '../../features/context/options.js';
import { defaultSpillParent } from '../../exec/output/spill.js';
import { isLoopbackHost, liveboardBindProblem, mcpBindProblem, parseAllowHost, parseListen, parseMcpListen, written } from '../../net/address.js';
import type { Annotations } from '../../server/options.js';
import { LOG_FORMATS, type LogFormat } from '../../log.js';
import { isGoverned, NETWORK_SETTINGS, resolveWriteMode, SANDBOX_MODES } from '../../bounds/modes.js';
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_DRAIN_MS,
  DEFAULT_HEAD_BYTES,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HTTP_IDLE_MS,
  DEFAULT_INLINE_LIMIT_BYTES,
  DEFAULT_LISTEN,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_CONVERSATIONS,
  DEFAULT_MAX_EXEC_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_YIELD_MS,
  DEFAULT_PREVIEW_BYTES,
  DEFAULT_SPILL_CAP_BYTES,
  DEFAULT_SPILL_FOLDER_MAX_BYTES,
  DEFAULT_SPILL_MAX_AGE_MS,
  DEFAULT_TAIL_FILE_BYTES,
  MAX_MAX_YIELD_MS,
  type Config,
} from './defaults.js';
import { setting, ConfigUsageError } from './errors.js';
import { OAUTH_FLAG_OPTIONS, oauthConfigFrom } from './oauth.js';
import { loadToken, resolveStateDir } from './sources.js';

const options = {
  transport: { type: 'string' },
  listen: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  mode: { type: 'string' },
  annotations: { type: 'string' },
  'default-workdir': { type: 'string' },
  shell: { type: 'string' },
  'max-exec-timeout-ms': { type: 'string' },
  'max-yield-ms': { type: 'string' },
  'inline-limit-bytes': { type: 'string' },
  'preview-bytes': { type: 'string' },
  'head-bytes': { type: 'string' },
  'tail-file-bytes': { type: 'string' },
  'spill-dir': { type: 'string' },
  'spill-cap-bytes': { type: 'string' },
  'spill-max-age-ms': { type: 'string' },
  'spill-folder-max-bytes': { type: 'string' },
  'max-sessions': { type: 'string' },
  'auth-token-file': { type: 'string' },
  'insecure-no-auth': { type: 'boolean' },
  'http-idle-ms': { type: 'string' },
  'handle-idle-ms': { type: 'string' },
  'drain-ms': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-conversations': { type: 'string' },
  'headers-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  'state-dir': { type: 'string' },
  'write-mode': { type: 'string' },
  'redact-env': { type: 'string', multiple: true },
  sandbox: { type: 'string' },
  'writable-root': { type: 'string', multiple: true },
  'sandbox-network': { type: 'string' },
  'git-read-credentials': { type: 'string' },
  liveboard: { type: 'string' },
  'ops-listen': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  ...CONTEXT_FLAG_OPTIONS,
  ...OAUTH_FLAG_OPTIONS,
} satisfies ParseArgsConfig['options'];

// A --redact-env name: a variable name, or its start and a *. A bare * (every variable, PATH and
// HOME included) would leave nothing readable, so it is no pattern.
const REDACT_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

export type CliRequest = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; config: Config };

function parseCount(flag: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value.trim())) {
    throw new ConfigUsageError(`${flag} ${JSON.stringify(value)} is not a whole number; write e.g. ${flag} ${fallback}`);
  }
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min) {
    throw new ConfigUsageError(`${flag} must be at least ${min}; got ${value}`);
  }
  return number;
}

// flag: where the value came from, a flag or an environment variable (the refusal names it).
function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new ConfigUsageError(`${written(flag, JSON.stringify(value))} is not one of ${allowed.join(', ')}; write e.g. ${written(flag, allowed[0]!)}`);
}

// Which of a flag and its environment variable a value comes from (the flag wins).
const sourceOf = (flag: string, value: unknown, variable: string) => (value !== undefined ? flag : variable);

// --shell (or ZODEX_SHELL): an absolute path to an executable file.
function checkShell(flag: string, file: string): string {
  if (!path.isAbsolute(file))
    throw new ConfigUsageError(`${written(flag, JSON.stringify(file))} is not an absolute path; write e.g. ${written(flag, '/bin/zsh')}`);
  try {
    fs.accessSync(file, fs.constants.X_OK);
    if (!fs.statSync(file).isFile()) throw new Error('not a file');
  } catch {
    throw new ConfigUsageError(`${written(flag, file)} is not an executable file; name an installed shell, e.g. one /etc/shells lists`);
  }
  return file;
}

function checkDirectory(flag: string, dir: string): string {
  if (!path.isAbsolute(dir)) throw new ConfigUsageError(`${flag} must be an absolute path; got ${JSON.stringify(dir)}`);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ConfigUsageError(`${flag} ${dir} does not exist; create it or pass an existing directory`);
  }
  if (!stat.isDirectory()) throw new ConfigUsageError(`${flag} ${dir} is not a directory`);
  return path.normalize(dir);
}

// --annotations (or ZODEX_ANNOTATIONS): all-read-only (default) or truthful. `seed`, the name
// before all-read-only, still works (users' configs carry it) and says so once at start.
function annotationsSetting(flag: string | undefined, env: string | undefined, notices: string[]): Annotations {
  const from = sourceOf('--annotations', flag, 'ZODEX_ANNOTATIONS');
  const value = flag ?? (env || 'all-read-only');
  if (value === 'seed') {
    notices.push(
      `${written(from, 'seed')} is now called ${written(from, 'all-read-only')} (every tool announced read-only and not destructive); seed still works, the same way`,
    );
    return 'all-read-only';
  }
  return oneOf(from, value, ['all-read-only', 'truthful'] as const);
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliRequest {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new ConfigUsageError(`${(error as Error).message.split('\n')[0]}; see zodexd --help`);
  }
  const flags = parsed.values;
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };

  const notices: string[] = [];
  const transport = oneOf(sourceOf('--transport', flags.transport, 'ZODEX_TRANSPORT'), flags.transport ?? env.ZODEX_TRANSPORT ?? 'stdio', [
    'stdio',
    'http',
  ] as const);
  const mode = oneOf(sourceOf('--mode', flags.mode, 'ZODEX_MODE'), flags.mode ?? env.ZODEX_MODE ?? 'local', ['local', 'sprite'] as const);
  const annotations = annotationsSetting(flags.annotations, env.ZODEX_ANNOTATIONS, notices);

  if (transport === 'stdio') {
    if (flags.listen !== undefined) {
      throw new ConfigUsageError('--listen only applies to --transport http; drop --listen or add --transport http');
    }
    if (flags['allow-host'] !== undefined) {
      throw new ConfigUsageError('--allow-host only applies to --transport http; drop --allow-host or add --transport http');
    }
    if (flags['insecure-no-auth']) {
      throw new ConfigUsageError('--insecure-no-auth only applies to --transport http; drop it');
    }
    for (const name of ['ZODEX_LISTEN', 'ZODEX_ALLOW_HOST'] as const) {
      if (env[name]) notices.push(`ignoring ${name}: it only applies to --transport http`);
    }
  }

  const oauth = oauthConfigFrom(flags, transport);
  // A refused value is named as the user wrote it: the flag, or the environment variable.
  const listenFrom = flags.listen === undefined && transport === 'http' && env.ZODEX_LISTEN ? 'ZODEX_LISTEN' : '--listen';
  const listen = setting(() =>
    parseMcpListen(flags.listen ?? (transport === 'http' ? env.ZODEX_LISTEN || undefined : undefined) ?? DEFAULT_LISTEN, listenFrom),
  );
  const allowHostFrom = sourceOf('--allow-host', flags['allow-host'], 'ZODEX_ALLOW_HOST');
  const allowHostValues = flags['allow-host'] ?? (transport === 'http' && env.ZODEX_ALLOW_HOST ? env.ZODEX_ALLOW_HOST.split(',').filter((h) => h.trim()) : []);
  // The public host of --public-url is where clients address this server: the Host rule admits it.
  const allowHosts = [
    ...new Set([...allowHostValues.map((value) => setting(() => parseAllowHost(value, allowHostFrom))), ...(oauth.publicHost ? [oauth.publicHost] : [])]),
  ];
  if (transport === 'http' && allowHosts.length > 0 && !isLoopbackHost(listen.host)) {
    notices.push(`--allow-host has no effect on a non-loopback --listen ${listen.host}: no Host rule applies there`);
  }

  const maxExecTimeoutMs = parseCount('--max-exec-timeout-ms', flags['max-exec-timeout-ms'], DEFAULT_MAX_EXEC_TIMEOUT_MS);
  const maxYieldMs = parseCount('--max-yield-ms', flags['max-yield-ms'], DEFAULT_MAX_YIELD_MS, 0);
  if (maxYieldMs > MAX_MAX_YIELD_MS) {
    throw new ConfigUsageError(`--max-yield-ms must be at most ${MAX_MAX_YIELD_MS} (1 hour); got ${maxYieldMs}. Clients time out long before that`);
  }
  const inlineLimitBytes = parseCount('--inline-limit-bytes', flags['inline-limit-bytes'], DEFAULT_INLINE_LIMIT_BYTES, 256);
  const previewBytes = Math.min(parseCount('--preview-bytes', flags['preview-bytes'], DEFAULT_PREVIEW_BYTES, 64), inlineLimitBytes);
  // The head takes at most half of the preview, so the tail (where errors usually are) keeps room.
  const headBytes = Math.min(parseCount('--head-bytes', flags['head-bytes'], DEFAULT_HEAD_BYTES, 16), Math.floor(previewBytes / 2));

  const authToken = loadToken(flags['auth-token-file'], env);
  const insecureNoAuth = flags['insecure-no-auth'] ?? false;
  const bindProblem = transport === 'http' ? mcpBindProblem(listen, authToken, insecureNoAuth, oauth.enabled, listenFrom) : undefined;
  if (bindProblem) throw new ConfigUsageError(bindProblem);

  const liveboard = flags.liveboard === undefined ? undefined : setting(() => parseListen(flags.liveboard!, '--liveboard'));
  const liveboardProblem = liveboard && liveboardBindProblem(liveboard, authToken, '--liveboard');
  if (liveboardProblem) throw new ConfigUsageError(liveboardProblem);

  // Off by default; the same address rules as --listen (no wildcard). Unauthenticated and read-only.
  const opsValue = flags['ops-listen'] ?? (env.ZODEX_OPS_LISTEN || undefined);
  const opsListen =
    opsValue === undefined ? undefined : setting(() => parseListen(opsValue, sourceOf('--ops-listen', flags['ops-listen'], 'ZODEX_OPS_LISTEN')));

  const stateDir = resolveStateDir(flags['state-dir'], env);
  let context: ContextOptions;
  try {
    context = loadContextOptions({ stateDir, flags: contextFlagsFrom(flags), env });
  } catch (error) {
    if (error instanceof ContextConfigError) throw new ConfigUsageError(error.message);
    throw error;
  }

  let writeMode: ReturnType<typeof resolveWriteMode>;
  try {
    writeMode = resolveWriteMode(flags['write-mode'], env);
  } catch (error) {
    throw new ConfigUsageError((error as Error).message);
  }
  const sandbox = oneOf(sourceOf('--sandbox', flags.sandbox, 'ZODEX_SANDBOX'), flags.sandbox ?? (env.ZODEX_SANDBOX || 'off'), SANDBOX_MODES);
  const sandboxNetwork = oneOf(
    sourceOf('--sandbox-network', flags['sandbox-network'], 'ZODEX_SANDBOX_NETWORK'),
    flags['sandbox-network'] ?? (env.ZODEX_SANDBOX_NETWORK || 'on'),
    NETWORK_SETTINGS,
  );
  const rootValues = flags['writable-root'] ?? (env.ZODEX_WRITABLE_ROOTS ? env.ZODEX_WRITABLE_ROOTS.split(':').filter((root) => root !== '') : []);
  if (rootValues.length > 0 && sandbox !== 'workspace-write') {
    throw new ConfigUsageError(
      `--writable-root only applies to --sandbox workspace-write (the sandbox is ${sandbox}); drop it or add --sandbox workspace-write`,
    );
  }
  const writableRoots = [...new Set(rootValues.map((root) => fs.realpathSync(checkDirectory('--writable-root', root))))];
  const gitReadCredentials = flags['git-read-credentials'] ?? (env.ZODEX_GIT_READ_CREDENTIALS || undefined);
  if (gitReadCredentials !== undefined && !isGoverned(writeMode.mode)) {
    throw new ConfigUsageError(
      '--git-read-credentials only applies to --write-mode read-only or publish-pr: in direct mode commands use your own credentials; drop it or choose a governed mode',
    );
  }
  const redactEnv = (flags['redact-env'] ?? (env.ZODEX_REDACT_ENV ?? '').split(',')).map((name) => name.trim()).filter((name) => name !== '');
  for (const name of redactEnv) {
    if (!REDACT_ENV_NAME.test(name)) {
      throw new ConfigUsageError(
        `--redact-env ${JSON.stringify(name.slice(0, 80))} is not a variable name (letters, digits, _) with at most a trailing *; write e.g. --redact-env AWS_SECRET_ACCESS_KEY or --redact-env 'OPENAI_*'`,
      );
    }
  }
  const config: Config = {
    transport,
    listen,
    allowHosts,
    mode,
    annotations,
    startDir: process.cwd(),
    defaultWorkdir: flags['default-workdir'] === undefined ? undefined : checkDirectory('--default-workdir', flags['default-workdir']),
    shell: flags.shell !== undefined ? checkShell('--shell', flags.shell) : env.ZODEX_SHELL ? checkShell('ZODEX_SHELL', env.ZODEX_SHELL) : undefined,
    maxExecTimeoutMs,
    maxYieldMs,
    inlineLimitBytes,
    previewBytes,
    headBytes,
    tailFileBytes: parseCount('--tail-file-bytes', flags['tail-file-bytes'], DEFAULT_TAIL_FILE_BYTES, 1024),
    spillDir: path.resolve(flags['spill-dir'] ?? (env.ZODEX_SPILL_DIR || defaultSpillParent())),
    spillCapBytes: parseCount('--spill-cap-bytes', flags['spill-cap-bytes'], DEFAULT_SPILL_CAP_BYTES),
    spillMaxAgeMs: parseCount('--spill-max-age-ms', flags['spill-max-age-ms'], DEFAULT_SPILL_MAX_AGE_MS),
    spillFolderMaxBytes: parseCount('--spill-folder-max-bytes', flags['spill-folder-max-bytes'], DEFAULT_SPILL_FOLDER_MAX_BYTES, 65_536),
    maxSessions: parseCount('--max-sessions', flags['max-sessions'], DEFAULT_MAX_SESSIONS),
    authToken,
    insecureNoAuth,
    httpIdleMs: parseCount('--http-idle-ms', flags['http-idle-ms'], DEFAULT_HTTP_IDLE_MS),
    handleIdleMs: parseCount('--handle-idle-ms', flags['handle-idle-ms'], DEFAULT_HTTP_IDLE_MS),
    drainMs: parseCount('--drain-ms', flags['drain-ms'], DEFAULT_DRAIN_MS, 0),
    maxBodyBytes: parseCount('--max-body-bytes', flags['max-body-bytes'], DEFAULT_MAX_BODY_BYTES, 1024),
    maxConversations: parseCount('--max-conversations', flags['max-conversations'], DEFAULT_MAX_CONVERSATIONS),
    headersTimeoutMs: parseCount('--headers-timeout-ms', flags['headers-timeout-ms'], DEFAULT_HEADERS_TIMEOUT_MS, 100),
    bodyTimeoutMs: parseCount('--body-timeout-ms', flags['body-timeout-ms'], DEFAULT_BODY_TIMEOUT_MS, 100),
    stateDir,
    context,
    writeMode: writeMode.mode,
    writeModeSource: writeMode.source,
    sandbox,
    writableRoots,
    sandboxNetwork,
    gitReadCredentials: gitReadCredentials === undefined ? undefined : path.resolve(gitReadCredentials),
    authTokenFile: flags['auth-token-file'] === undefined ? undefined : path.resolve(flags['auth-token-file']),
    redactEnv,
    liveboard,
    opsListen,
    logFormat: oneOf(sourceOf('--log-format', flags['log-format'], 'ZODEX_LOG_FORMAT'), flags['log-format'] ?? (env.ZODEX_LOG_FORMAT || 'text'), LOG_FORMATS),
    oauth,
    notices,
  };
  return { kind: 'run', config };
}

// The log format asked for, read before the rest is parsed so that a usage error is already a
// line in that format; a value that is no format is text here (parseCli then refuses it).
export function logFormatOf(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): LogFormat {
  let value = env.ZODEX_LOG_FORMAT;
  argv.forEach((arg, i) => {
    if (arg === '--log-format') value = argv[i + 1];
    else if (arg.startsWith('--log-format=')) value = arg.slice('--log-format='.length);
  });
  return value === 'json' ? 'json' : 'text';
}

// The Config of a zodexd started with `argv` (and `env`, none by default): for tests and
// benchmarks that build a layer's options exactly as zodexd does. Throws for --help and --version.
export function configFor(argv: string[], env: NodeJS.ProcessEnv = {}): Config {
  const request = parseCli(argv, env);
  if (request.kind !== 'run') throw new Error(`expected a run request, got ${request.kind}`);
  return request.config;
}
