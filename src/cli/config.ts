// argv + environment -> a validated Config, or a UsageError naming the flag and the fix.
// All defaults are applied here, in one place; every rule of seed 003 about which flags go
// together is checked here, before anything starts.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CONTEXT_FLAG_OPTIONS, CONTEXT_USAGE, ContextConfigError, contextFlagsFrom, loadContextOptions, type ContextOptions } from '../context/index.js';
import { defaultSpillParent } from '../exec/spill.js';
import { WRITE_MODES, type WriteMode } from '../publisher/config.js';

export const DEFAULT_LISTEN = '127.0.0.1:7391';
export const DEFAULT_MAX_EXEC_TIMEOUT_MS = 7_200_000; // 2 h, the seed's example
export const DEFAULT_INLINE_LIMIT_BYTES = 16 * 1024; // ~4k tokens: a screenful or two of logs
export const DEFAULT_PREVIEW_BYTES = 4 * 1024; // head + tail shown once a stream spilled
export const DEFAULT_HEAD_BYTES = 1024; // of the preview, the start of what is new
export const DEFAULT_TAIL_FILE_BYTES = 1024 * 1024; // last bytes kept past the spill cap
export const DEFAULT_SPILL_CAP_BYTES = 16 * 1024 * 1024; // seed 002: 16 MiB per file
export const DEFAULT_SPILL_MAX_AGE_MS = 24 * 3_600_000; // seed 002: 24 hours
export const DEFAULT_MAX_SESSIONS = 64;
// Under every default client request timeout measured (bench/results/client-timeouts.json): 60 s.
export const DEFAULT_MAX_YIELD_MS = 30_000;
export const MAX_MAX_YIELD_MS = 3_600_000;
export const DEFAULT_HTTP_IDLE_MS = 30 * 60_000;
export const DEFAULT_DRAIN_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_CONVERSATIONS = 128;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export type Transport = 'stdio' | 'http';
export type Mode = 'local' | 'sprite';
// seed: every tool read-only and not destructive (seed 000); truthful: the tools that run
// commands or write files say so, so clients that gate on annotations ask first.
export type Annotations = 'seed' | 'truthful';

export interface ListenAddress {
  host: string; // as given, without IPv6 brackets
  port: number;
}

export interface Config {
  transport: Transport;
  listen: ListenAddress;
  allowHosts: string[]; // lower-case host names, no ports
  mode: Mode;
  annotations: Annotations;
  // The directory zodexd was started in: in Local mode, offered as the first workdir.
  startDir: string;
  defaultWorkdir: string | undefined;
  maxExecTimeoutMs: number;
  maxYieldMs: number; // no exec_command or write_stdin call waits longer
  inlineLimitBytes: number;
  previewBytes: number;
  headBytes: number;
  tailFileBytes: number;
  spillDir: string;
  spillCapBytes: number;
  spillMaxAgeMs: number;
  maxSessions: number;
  authToken: string | undefined;
  insecureNoAuth: boolean;
  httpIdleMs: number;
  drainMs: number;
  maxBodyBytes: number; // HTTP bodies and stdio lines alike
  maxConversations: number; // open HTTP sessions
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  stateDir: string;
  context: ContextOptions;
  writeMode: WriteMode | undefined;
  // The operator's Liveboard page on its own listener (--liveboard HOST:PORT); off when undefined.
  liveboard: ListenAddress | undefined;
  // Notes for stderr at start (e.g. an environment variable that was ignored).
  notices: string[];
}

export class UsageError extends Error {
  override name = 'UsageError';
}

const options = {
  transport: { type: 'string' },
  listen: { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  mode: { type: 'string' },
  annotations: { type: 'string' },
  'default-workdir': { type: 'string' },
  'max-exec-timeout-ms': { type: 'string' },
  'max-yield-ms': { type: 'string' },
  'inline-limit-bytes': { type: 'string' },
  'preview-bytes': { type: 'string' },
  'head-bytes': { type: 'string' },
  'tail-file-bytes': { type: 'string' },
  'spill-dir': { type: 'string' },
  'spill-cap-bytes': { type: 'string' },
  'spill-max-age-ms': { type: 'string' },
  'max-sessions': { type: 'string' },
  'auth-token-file': { type: 'string' },
  'insecure-no-auth': { type: 'boolean' },
  'http-idle-ms': { type: 'string' },
  'drain-ms': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'max-conversations': { type: 'string' },
  'headers-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  'state-dir': { type: 'string' },
  'write-mode': { type: 'string' },
  liveboard: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
  ...CONTEXT_FLAG_OPTIONS,
} satisfies ParseArgsConfig['options'];

export type CliRequest = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; config: Config };

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '0:0:0:0:0:0:0:0', '*']);

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(bare);
  return false;
}

export function parseListen(value: string, flag = '--listen'): ListenAddress {
  const match = /^(?:\[([^\]]*)\]|([^:[\]]*)):([0-9]+)$/.exec(value);
  if (!match) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not HOST:PORT; write e.g. ${flag} 127.0.0.1:7391 (IPv6: [::1]:7391)`);
  }
  const host = (match[1] ?? match[2] ?? '').trim();
  const port = Number(match[3]);
  if (WILDCARD_HOSTS.has(host.toLowerCase())) {
    throw new UsageError(
      `${flag} ${value} is a wildcard bind, which zodexd refuses; name the interface clients reach you on, e.g. ${flag} 127.0.0.1:${port}`,
    );
  }
  if (!Number.isInteger(port) || port > 65535) {
    throw new UsageError(`${flag} ${value}: the port must be 0-65535 (0 picks a free one)`);
  }
  return { host, port };
}

// A Liveboard on a non-loopback address needs a token (zodexd --liveboard, zodex liveboard --listen).
export function liveboardBindProblem(listen: ListenAddress, token: string | undefined, flag: string): string | undefined {
  if (isLoopbackHost(listen.host) || token !== undefined) return undefined;
  return `${flag} ${listen.host} is not a loopback address, so the Liveboard needs a token: pass --auth-token-file PATH or set ZODEX_AUTH_TOKEN`;
}

export function parseAllowHost(value: string): string {
  const host = value.trim().toLowerCase();
  if (host === '' || /\s|\//.test(host)) {
    throw new UsageError(`--allow-host ${JSON.stringify(value)} is not a hostname; write e.g. --allow-host host.docker.internal`);
  }
  const hasPort = host.startsWith('[') ? /\]:\d*$/.test(host) : /:/.test(host) && !net.isIPv6(host);
  if (hasPort) {
    const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.slice(0, host.lastIndexOf(':'));
    throw new UsageError(`--allow-host takes a hostname without a port; write --allow-host ${bare} (any port is accepted)`);
  }
  return host.replace(/^\[(.*)\]$/, '$1');
}

function parseCount(flag: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]+$/.test(value.trim())) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} is not a whole number; write e.g. ${flag} ${fallback}`);
  }
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < min) {
    throw new UsageError(`${flag} must be at least ${min}; got ${value}`);
  }
  return number;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} ${JSON.stringify(value)} is not one of ${allowed.join(', ')}; write e.g. ${flag} ${allowed[0]}`);
}

function checkDirectory(flag: string, dir: string): string {
  if (!path.isAbsolute(dir)) throw new UsageError(`${flag} must be an absolute path; got ${JSON.stringify(dir)}`);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new UsageError(`${flag} ${dir} does not exist; create it or pass an existing directory`);
  }
  if (!stat.isDirectory()) throw new UsageError(`${flag} ${dir} is not a directory`);
  return path.normalize(dir);
}

export function readToken(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--auth-token-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code}); check the path`);
  }
  const token = text.trim();
  if (token.length < 16) {
    throw new UsageError(`--auth-token-file ${file} holds a token shorter than 16 characters; use e.g. \`openssl rand -hex 32\``);
  }
  return token;
}

function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'zodex');
}

export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliRequest {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]}; see zodexd --help`);
  }
  const flags = parsed.values;
  if (flags.help) return { kind: 'help' };
  if (flags.version) return { kind: 'version' };

  const notices: string[] = [];
  const transport = oneOf('--transport', flags.transport ?? env.ZODEX_TRANSPORT ?? 'stdio', ['stdio', 'http'] as const);
  const mode = oneOf('--mode', flags.mode ?? env.ZODEX_MODE ?? 'local', ['local', 'sprite'] as const);
  const annotations = oneOf('--annotations', flags.annotations ?? (env.ZODEX_ANNOTATIONS || 'seed'), ['seed', 'truthful'] as const);

  if (transport === 'stdio') {
    if (flags.listen !== undefined) {
      throw new UsageError('--listen only applies to --transport http; drop --listen or add --transport http');
    }
    if (flags['allow-host'] !== undefined) {
      throw new UsageError('--allow-host only applies to --transport http; drop --allow-host or add --transport http');
    }
    if (flags['insecure-no-auth']) {
      throw new UsageError('--insecure-no-auth only applies to --transport http; drop it');
    }
    for (const name of ['ZODEX_LISTEN', 'ZODEX_ALLOW_HOST'] as const) {
      if (env[name]) notices.push(`ignoring ${name}: it only applies to --transport http`);
    }
  }

  const listen = parseListen(flags.listen ?? (transport === 'http' ? env.ZODEX_LISTEN : undefined) ?? DEFAULT_LISTEN);
  const allowHostValues =
    flags['allow-host'] ?? (transport === 'http' && env.ZODEX_ALLOW_HOST ? env.ZODEX_ALLOW_HOST.split(',').filter((h) => h.trim()) : []);
  const allowHosts = [...new Set(allowHostValues.map(parseAllowHost))];
  if (transport === 'http' && allowHosts.length > 0 && !isLoopbackHost(listen.host)) {
    notices.push(`--allow-host has no effect on a non-loopback --listen ${listen.host}: no Host rule applies there`);
  }

  const maxExecTimeoutMs = parseCount('--max-exec-timeout-ms', flags['max-exec-timeout-ms'], DEFAULT_MAX_EXEC_TIMEOUT_MS);
  const maxYieldMs = parseCount('--max-yield-ms', flags['max-yield-ms'], DEFAULT_MAX_YIELD_MS, 0);
  if (maxYieldMs > MAX_MAX_YIELD_MS) {
    throw new UsageError(`--max-yield-ms must be at most ${MAX_MAX_YIELD_MS} (1 hour); got ${maxYieldMs}. Clients time out long before that`);
  }
  const inlineLimitBytes = parseCount('--inline-limit-bytes', flags['inline-limit-bytes'], DEFAULT_INLINE_LIMIT_BYTES, 256);
  const previewBytes = Math.min(parseCount('--preview-bytes', flags['preview-bytes'], DEFAULT_PREVIEW_BYTES, 64), inlineLimitBytes);
  // The head takes at most half of the preview, so the tail (where errors usually are) keeps room.
  const headBytes = Math.min(parseCount('--head-bytes', flags['head-bytes'], DEFAULT_HEAD_BYTES, 16), Math.floor(previewBytes / 2));

  let authToken: string | undefined;
  if (flags['auth-token-file'] !== undefined) authToken = readToken(flags['auth-token-file']);
  else if (env.ZODEX_AUTH_TOKEN) {
    authToken = env.ZODEX_AUTH_TOKEN.trim();
    if (authToken.length < 16) throw new UsageError('ZODEX_AUTH_TOKEN is shorter than 16 characters; use e.g. `openssl rand -hex 32`');
  }
  const insecureNoAuth = flags['insecure-no-auth'] ?? false;
  if (transport === 'http' && !isLoopbackHost(listen.host) && !authToken && !insecureNoAuth) {
    throw new UsageError(
      `--listen ${listen.host} is not a loopback address, so a token is required: pass --auth-token-file PATH or set ZODEX_AUTH_TOKEN (or, knowingly, --insecure-no-auth)`,
    );
  }

  const liveboard = flags.liveboard === undefined ? undefined : parseListen(flags.liveboard, '--liveboard');
  const liveboardProblem = liveboard && liveboardBindProblem(liveboard, authToken, '--liveboard');
  if (liveboardProblem) throw new UsageError(liveboardProblem);

  const stateDir = flags['state-dir'] === undefined ? defaultStateDir(env) : path.resolve(flags['state-dir']);
  let context: ContextOptions;
  try {
    context = loadContextOptions({ stateDir, flags: contextFlagsFrom(flags), env });
  } catch (error) {
    if (error instanceof ContextConfigError) throw new UsageError(error.message);
    throw error;
  }

  const writeModeValue = flags['write-mode'] ?? (env.ZODEX_WRITE_MODE || undefined);
  const config: Config = {
    transport,
    listen,
    allowHosts,
    mode,
    annotations,
    startDir: process.cwd(),
    defaultWorkdir: flags['default-workdir'] === undefined ? undefined : checkDirectory('--default-workdir', flags['default-workdir']),
    maxExecTimeoutMs,
    maxYieldMs,
    inlineLimitBytes,
    previewBytes,
    headBytes,
    tailFileBytes: parseCount('--tail-file-bytes', flags['tail-file-bytes'], DEFAULT_TAIL_FILE_BYTES, 1024),
    spillDir: flags['spill-dir'] === undefined ? defaultSpillParent() : path.resolve(flags['spill-dir']),
    spillCapBytes: parseCount('--spill-cap-bytes', flags['spill-cap-bytes'], DEFAULT_SPILL_CAP_BYTES),
    spillMaxAgeMs: parseCount('--spill-max-age-ms', flags['spill-max-age-ms'], DEFAULT_SPILL_MAX_AGE_MS),
    maxSessions: parseCount('--max-sessions', flags['max-sessions'], DEFAULT_MAX_SESSIONS),
    authToken,
    insecureNoAuth,
    httpIdleMs: parseCount('--http-idle-ms', flags['http-idle-ms'], DEFAULT_HTTP_IDLE_MS),
    drainMs: parseCount('--drain-ms', flags['drain-ms'], DEFAULT_DRAIN_MS, 0),
    maxBodyBytes: parseCount('--max-body-bytes', flags['max-body-bytes'], DEFAULT_MAX_BODY_BYTES, 1024),
    maxConversations: parseCount('--max-conversations', flags['max-conversations'], DEFAULT_MAX_CONVERSATIONS),
    headersTimeoutMs: parseCount('--headers-timeout-ms', flags['headers-timeout-ms'], DEFAULT_HEADERS_TIMEOUT_MS, 100),
    bodyTimeoutMs: parseCount('--body-timeout-ms', flags['body-timeout-ms'], DEFAULT_BODY_TIMEOUT_MS, 100),
    stateDir,
    context,
    writeMode: writeModeValue === undefined ? undefined : oneOf('--write-mode', writeModeValue, WRITE_MODES),
    liveboard,
    notices,
  };
  return { kind: 'run', config };
}

export const USAGE = `Usage: zodexd [options]

Serves zodex's MCP tools (exec_command, write_stdin, apply_patch) over stdio or streamable HTTP.

Transport:
  --transport stdio|http      stdio (default) or HTTP at http://HOST:PORT/mcp   [env ZODEX_TRANSPORT]
  --listen HOST:PORT          HTTP address (default ${DEFAULT_LISTEN}; port 0 = any free port;
                              wildcards 0.0.0.0, ::, :PORT are refused)          [env ZODEX_LISTEN]
  --allow-host HOST           admit this Host header on a loopback bind, any port; repeatable
                                                                          [env ZODEX_ALLOW_HOST, comma list]
  --auth-token-file PATH      require "Authorization: Bearer <token>"        [env ZODEX_AUTH_TOKEN]
  --insecure-no-auth          allow a non-loopback bind without a token (not recommended)
  --http-idle-ms N            end an idle HTTP session and kill its commands (default ${DEFAULT_HTTP_IDLE_MS})
  --drain-ms N                on SIGTERM, let calls in flight finish for up to N ms (default ${DEFAULT_DRAIN_MS})
  --max-body-bytes N          largest HTTP request body, and largest stdio line (default ${DEFAULT_MAX_BODY_BYTES})
  --max-conversations N       open HTTP sessions; when full, idle ones without a running command
                              are closed oldest first, else 503 (default ${DEFAULT_MAX_CONVERSATIONS})
  --headers-timeout-ms N      a request's headers must arrive within N ms, else 408 (default ${DEFAULT_HEADERS_TIMEOUT_MS})
  --body-timeout-ms N         a request's body must arrive within N ms, else 408 (default ${DEFAULT_BODY_TIMEOUT_MS})

Execution:
  --mode local|sprite         local (default): login-shell environment, set_agent_alias;
                              sprite: sandbox, bash in the server's environment   [env ZODEX_MODE]
  --annotations seed|truthful seed (default): every tool readOnlyHint true, destructiveHint false;
                              truthful: exec_command, write_stdin, apply_patch readOnlyHint false,
                              destructiveHint true, so clients that gate on them ask first
                                                                          [env ZODEX_ANNOTATIONS]
  --default-workdir DIR       workdir for exec_command calls that omit it (otherwise required)
  --max-exec-timeout-ms N     cap on timeout_ms, and the default (default ${DEFAULT_MAX_EXEC_TIMEOUT_MS})
  --max-yield-ms N            cap on yield_time_ms of exec_command and write_stdin: no call waits
                              longer (default ${DEFAULT_MAX_YIELD_MS}, under the 60 s request timeout
                              of common clients, which progress notifications do not extend)
  --max-sessions N            commands running at once (default ${DEFAULT_MAX_SESSIONS})

Output:
  --inline-limit-bytes N      a stream larger than this spills to a file (default ${DEFAULT_INLINE_LIMIT_BYTES})
  --preview-bytes N           head + tail shown once spilled (default ${DEFAULT_PREVIEW_BYTES})
  --head-bytes N              of that, the start of what is new (default ${DEFAULT_HEAD_BYTES}; at most half)
  --tail-file-bytes N         last bytes kept past the spill cap, in a tail file (default ${DEFAULT_TAIL_FILE_BYTES})
  --spill-dir DIR             parent of the spill folders (default $TMPDIR/zodex-UID)
  --spill-cap-bytes N         bytes kept per spill file (default ${DEFAULT_SPILL_CAP_BYTES})
  --spill-max-age-ms N        spill files older than this are removed (default ${DEFAULT_SPILL_MAX_AGE_MS})

Liveboard (the operator's web page: agents, timelines, live sessions):
  --liveboard HOST:PORT       serve it at http://HOST:PORT/, on its own listener (default off;
                              port 0 = any free port; wildcards refused; a non-loopback HOST
                              needs --auth-token-file; --allow-host names admit it too)

State and GitHub:
  --state-dir DIR             history database and settings (default $XDG_STATE_HOME/zodex)
  --write-mode MODE           read-only | publish-pr | direct: unless direct, commands run without
                              GITHUB_TOKEN/GH_TOKEN, so pushes go through zodex-agent and the
                              publisher daemon (default: not governed)       [env ZODEX_WRITE_MODE]

${CONTEXT_USAGE}
  -h, --help                  this text
  -V, --version               the version
`;
