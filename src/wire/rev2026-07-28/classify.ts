// Which era an HTTP POST to /mcp belongs to, decided from its body first (as the 2026-07-28
// revision says) and then checked against its MCP-Protocol-Version / Mcp-Method / Mcp-Name
// headers: 2025-11-25 (to the session stack), 2026-07-28 (to the 2026-07-28 server), or a 400 rejection.

import { quote } from '../../errors.js';
import { HEADER_MISMATCH, INVALID_PARAMS, claimedVersion, hasEnvelopeClaim, isRev2026Version, readEnvelope } from './envelope.js';

export interface Rev2026Headers {
  protocolVersion: string | undefined;
  method: string | undefined;
  name: string | undefined;
}

type Id = string | number | null;
export type Route =
  | { kind: '2025-11-25' }
  | { kind: '2026-07-28'; message: { id?: string | number; method: string; params?: Record<string, unknown> } }
  | { kind: 'reject'; status: number; id: Id; error: { code: number; message: string; data?: unknown } };

// The methods whose params field the Mcp-Name header mirrors.
const NAME_SOURCE: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function header(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(', ') : value;
  return joined === undefined ? undefined : joined.replace(/^[ \t]+|[ \t]+$/g, '');
}

export function rev2026Headers(headers: Record<string, string | string[] | undefined>): Rev2026Headers {
  return { protocolVersion: header(headers['mcp-protocol-version']), method: header(headers['mcp-method']), name: header(headers['mcp-name']) };
}

// An Mcp-Name value as the client meant it: plain, or "=?base64?...?=" decoded (undefined if invalid).
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const encoded = value.slice('=?base64?'.length, -2);
  if (encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
}

const shown = (value: string) => quote(value, 80);

function mismatch(id: Id, what: string): Route {
  return { kind: 'reject', status: 400, id, error: { code: HEADER_MISMATCH, message: `Header mismatch: ${what}` } };
}

export function classifyPost(headers: Rev2026Headers, body: unknown): Route {
  const headerRev2026 = headers.protocolVersion !== undefined && isRev2026Version(headers.protocolVersion);
  if (Array.isArray(body)) {
    if (body.some((element) => isObject(element) && hasEnvelopeClaim(element.params))) {
      return {
        kind: 'reject',
        status: 400,
        id: null,
        error: { code: -32600, message: 'Invalid Request: a JSON-RPC batch may not hold 2026-07-28 requests; send each request in its own POST' },
      };
    }
    return { kind: '2025-11-25' };
  }
  if (!isObject(body) || typeof body.method !== 'string') return { kind: '2025-11-25' }; // responses, junk: the 2025-11-25 stack answers
  const method = body.method;
  const id: Id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  const params = isObject(body.params) ? body.params : undefined;
  const claim = hasEnvelopeClaim(params);
  if (!('id' in body)) return claim || headerRev2026 ? { kind: '2026-07-28', message: { method, ...(params ? { params } : {}) } } : { kind: '2025-11-25' };
  if (method === 'initialize' && !(claim && isRev2026Version(claimedVersion(params) ?? ''))) {
    return headerRev2026
      ? mismatch(
          id,
          `an initialize request (the 2025 handshake) came with MCP-Protocol-Version ${shown(headers.protocolVersion!)}; send initialize without that header, or send 2026-07-28 requests without initialize`,
        )
      : { kind: '2025-11-25' };
  }
  if (!claim) {
    if (!headerRev2026) return { kind: '2025-11-25' };
    const message = `Invalid params: the MCP-Protocol-Version header names ${shown(headers.protocolVersion!)} but params._meta carries no io.modelcontextprotocol/protocolVersion; a 2026-07-28 request carries its version, client info and capabilities in _meta`;
    return { kind: 'reject', status: 400, id, error: { code: INVALID_PARAMS, message } };
  }
  const envelope = readEnvelope(params);
  if (!envelope.ok && envelope.code === INVALID_PARAMS) return { kind: 'reject', status: 400, id, error: { code: envelope.code, message: envelope.message } };
  const version = claimedVersion(params)!;
  if (headers.protocolVersion === undefined)
    return mismatch(id, `the MCP-Protocol-Version header is missing; it must repeat the body's protocol version ${shown(version)}`);
  if (headers.protocolVersion !== version)
    return mismatch(id, `MCP-Protocol-Version header ${shown(headers.protocolVersion)} does not match the body's protocol version ${shown(version)}`);
  if (headers.method === undefined) return mismatch(id, `the Mcp-Method header is missing; it must repeat the body's method ${shown(method)}`);
  if (headers.method !== method) return mismatch(id, `Mcp-Method header ${shown(headers.method)} does not match the body's method ${shown(method)}`);
  const field = Object.hasOwn(NAME_SOURCE, method) ? NAME_SOURCE[method]! : undefined;
  const value = field !== undefined && typeof params?.[field] === 'string' ? (params[field] as string) : undefined;
  if (field !== undefined && value !== undefined) {
    if (headers.name === undefined) return mismatch(id, `the Mcp-Name header is missing; it must repeat params.${field} ${shown(value)}`);
    const decoded = decodeHeaderValue(headers.name);
    if (decoded === undefined) return mismatch(id, 'the Mcp-Name header holds an invalid =?base64?…?= value');
    if (decoded !== value) return mismatch(id, `Mcp-Name header ${shown(decoded)} does not match params.${field} ${shown(value)}`);
  }
  if (!envelope.ok)
    return { kind: 'reject', status: 400, id, error: { code: envelope.code, message: envelope.message, ...(envelope.data ? { data: envelope.data } : {}) } };
  return { kind: '2026-07-28', message: { id: id!, method, ...(params ? { params } : {}) } };
}

// The HTTP status of an error the 2026-07-28 server answered (the envelope and headers were checked
// here before, with their own 400s): unknown method 404 (streamable-http.mdx), busy 503.
export function statusOf(code: number): number {
  if (code === -32601) return 404;
  if (code === -32000) return 503;
  return 200;
}
