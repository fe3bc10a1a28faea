// MCP 2026-07-28 per-request envelope: the `_meta` keys every 2026-07-28 request
// carries instead of an initialize handshake, read and checked as pure functions. A request
// "claims" the 2026-07-28 era when its _meta names a protocol version; the claim is then validated.

import { quote } from '../../errors.js';

export const REV2026_VERSION = '2026-07-28';
export const SUPPORTED_REV2026_VERSIONS: readonly string[] = [REV2026_VERSION];

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

// JSON-RPC codes of the 2026-07-28 era (basic/index "Error Codes").
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;

export interface Envelope {
  protocolVersion: string;
  clientInfo: { name: string; version: string } | undefined;
  clientCapabilities: Record<string, unknown>;
  meta: Record<string, unknown>; // the whole _meta (progressToken, client keys such as threadId)
}

export type EnvelopeCheck = { ok: true; envelope: Envelope } | { ok: false; code: number; message: string; data?: Record<string, unknown> };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

// Dates compare as strings: every revision from 2026-07-28 on takes these rules.
export function isRev2026Version(version: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= REV2026_VERSION;
}

export function metaOf(params: unknown): Record<string, unknown> | undefined {
  return isObject(params) && isObject(params._meta) ? params._meta : undefined;
}

export function hasEnvelopeClaim(params: unknown): boolean {
  const meta = metaOf(params);
  return meta !== undefined && META.protocolVersion in meta;
}

export function claimedVersion(params: unknown): string | undefined {
  const value = metaOf(params)?.[META.protocolVersion];
  return typeof value === 'string' ? value : undefined;
}

// The envelope of a 2026-07-28 request, or the error it is answered with (-32602 for a missing or
// malformed key, -32022 for a version this server does not serve). Values are never echoed
// unbounded: a version is shown only when short.
export function readEnvelope(params: unknown): EnvelopeCheck {
  const meta = metaOf(params);
  const missing = [META.protocolVersion, META.clientCapabilities].filter((key) => meta === undefined || !(key in meta));
  if (missing.length > 0) {
    return invalid(
      `the request's params._meta lacks ${missing.join(' and ')}; a 2026-07-28 request carries its protocol version and client capabilities in _meta on every request`,
    );
  }
  const version = meta![META.protocolVersion];
  if (typeof version !== 'string') return invalid(`_meta["${META.protocolVersion}"] must be a string such as "${REV2026_VERSION}"`);
  if (!isObject(meta![META.clientCapabilities])) return invalid(`_meta["${META.clientCapabilities}"] must be an object ({} when the client declares none)`);
  const info = meta![META.clientInfo];
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string')) {
    return invalid(`_meta["${META.clientInfo}"] must be an object with string name and version`);
  }
  if (!SUPPORTED_REV2026_VERSIONS.includes(version)) {
    const shown = version.length <= 40 ? quote(version) : `of ${version.length} characters`;
    return {
      ok: false,
      code: UNSUPPORTED_VERSION,
      message: `Unsupported protocol version ${shown}: this server serves ${SUPPORTED_REV2026_VERSIONS.join(', ')} per request (and 2025-11-25, 2025-06-18, 2025-03-26 after initialize)`,
      data: { supported: [...SUPPORTED_REV2026_VERSIONS], requested: version.slice(0, 40) },
    };
  }
  return {
    ok: true,
    envelope: {
      protocolVersion: version,
      clientInfo: isObject(info) ? { name: String(info.name), version: String(info.version) } : undefined,
      clientCapabilities: meta![META.clientCapabilities] as Record<string, unknown>,
      meta: meta!,
    },
  };
}

function invalid(message: string): EnvelopeCheck {
  return { ok: false, code: INVALID_PARAMS, message: `Invalid params: ${message}` };
}
