// The Config -> options mapping, in one place: each layer gets its own small options object
// (environment policy, engine, spill, MCP server, guard policy, HTTP listener), never the Config.
// Pure functions of the Config (and of what app/ already built), so each is testable alone.

import type { EngineOptions } from '../exec/engine.js';
import type { ShellSetup } from '../exec/environment.js';
import type { RedactionSource } from '../exec/output/redact.js';
import type { RefusalNotes } from '../exec/session.js';
import type { SpillOptions, SpillStore } from '../exec/output/spill.js';
import type { Log } from '../log.js';
import { isLoopbackHost } from '../net/address.js';
import { guardPolicy, type GuardPolicy } from '../net/guard.js';
import { instructionsFor } from '../server/instructions.js';
import type { ServerOptions } from '../server/options.js';
import type { SchemaLimits } from '../tools/schemas.js';
import type { OAuthOptions } from '../features/oauth/index.js';
import type { OAuthStore } from '../features/store/oauth.js';
import type { HttpOptions } from '../transport/http/serve.js';
import { boundsInstruction } from '../features/bounds/prepare.js';
import type { Config } from './config/defaults.js';
import { VERSION } from './version.js';

// Terminal size every command sees: wide enough that tools do not wrap tables and logs.
export const TERMINAL_COLS = 200;
export const TERMINAL_ROWS = 50;
// An ended session whose exit nobody collected is forgotten after this long.
export const UNREPORTED_RETENTION_MS = 3_600_000;

export function spillOptions(config: Config): SpillOptions {
  return { parentDir: config.spillDir, capBytes: config.spillCapBytes, maxAgeMs: config.spillMaxAgeMs, folderMaxBytes: config.spillFolderMaxBytes };
}

export function engineOptions(
  config: Config,
  built: {
    spawnHelper: string;
    shell: Promise<ShellSetup>;
    spill: SpillStore;
    log: Log; // the cgroup announcement; each command killed for its lease, with its handle and agent
    secrets?: RedactionSource;
    refusals?: RefusalNotes | undefined;
  },
): EngineOptions {
  return {
    ...built,
    limits: { inlineBytes: config.inlineLimitBytes, previewBytes: config.previewBytes, headBytes: config.headBytes, tailBytes: config.tailFileBytes },
    maxSessions: config.maxSessions,
    handleIdleMs: config.handleIdleMs,
    unreportedRetentionMs: UNREPORTED_RETENTION_MS,
    cols: TERMINAL_COLS,
    rows: TERMINAL_ROWS,
    standby: true,
  };
}

export function schemaLimits(config: Config): SchemaLimits {
  return {
    maxExecTimeoutMs: config.maxExecTimeoutMs,
    maxYieldMs: config.maxYieldMs,
    defaultWorkdir: config.defaultWorkdir,
    inlineLimitBytes: config.inlineLimitBytes,
    previewBytes: config.previewBytes,
    headBytes: config.headBytes,
    tailFileBytes: config.tailFileBytes,
    spillCapBytes: config.spillCapBytes,
  };
}

export function serverOptions(config: Config): ServerOptions {
  return {
    version: VERSION,
    instructions: instructionsFor({ mode: config.mode, startDir: config.startDir, defaultWorkdir: config.defaultWorkdir, bounds: boundsInstruction(config) }),
    mode: config.mode,
    annotations: config.annotations,
    limits: schemaLimits(config),
  };
}

// The MCP listener's Host/Origin/token rules.
export function mcpGuardPolicy(config: Config): GuardPolicy {
  return guardPolicy(config.listen, config.allowHosts, config.authToken);
}

// --oauth: the authorization server's options (the static token keeps working beside it).
export function oauthOptions(config: Config, built: Pick<OAuthOptions, 'store' | 'log' | 'secrets'>): OAuthOptions {
  return {
    ...built,
    publicOrigin: config.oauth.publicOrigin,
    staticToken: config.authToken,
    accessTokenTtlMs: config.oauth.accessTokenTtlMs,
    // http://127.0.0.1 client metadata documents: for local testing only, never behind a public URL.
    allowLoopbackClientDocuments: config.oauth.publicOrigin === undefined && (config.listen.socketPath !== undefined || isLoopbackHost(config.listen.host)),
  };
}

export function httpOptions(config: Config, built: Pick<HttpOptions, 'open' | 'rev2026' | 'hasRunningCommand' | 'log' | 'authenticator'>): HttpOptions {
  return {
    ...built,
    listen: config.listen,
    guard: mcpGuardPolicy(config),
    maxBodyBytes: config.maxBodyBytes,
    bodyTimeoutMs: config.bodyTimeoutMs,
    headersTimeoutMs: config.headersTimeoutMs,
    idleMs: config.httpIdleMs,
    maxConversations: config.maxConversations,
  };
}
