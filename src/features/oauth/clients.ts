// Who a client is: one registered here (RFC 7591, the fallback; client_id 'zc_…') or one whose
// client_id is the https URL of its metadata document (fetched at every authorization request,
// draft-ietf-oauth-client-id-metadata-document). Both give a name and the exact redirect URIs the
// authorization endpoint will send a code to. http://127.0.0.1 / localhost document URLs are
// accepted only when allowLoopbackDocuments is set (zodexd: loopback listener, no --public-url).

import net from 'node:net';
import { quote } from '../../errors.js';
import type { OAuthClient, OAuthStore } from '../store/oauth.js';
import { clientIdFor } from './secrets.js';

export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_CHARS = 2_000;
export const MAX_CLIENT_NAME_CHARS = 200;
export const MAX_REGISTERED_CLIENTS = 1_000;
// Registrations never approved that one source (peer address) may hold; beyond, its oldest goes.
export const MAX_UNAPPROVED_PER_SOURCE = 100;
export const METADATA_FETCH_TIMEOUT_MS = 5_000;
export const METADATA_MAX_BYTES = 64 * 1024;
// Documents fetched at once (by this process): each may hold a socket for 5 s and 64 KiB, so a
// burst of authorization requests naming slow documents stays bounded; beyond, a request is
// refused with a page that says to try again (nothing is fetched for it).
export const MAX_METADATA_FETCHES = 16;
let metadataFetches = 0;
const CONTROL_CHARACTERS = /\p{Cc}/u; // C0, DEL, C1: never part of a name shown to the operator
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ws:', 'wss:', 'ftp:']);

export class ClientError extends Error {
  constructor(
    readonly error: string, // the OAuth error code: invalid_client, invalid_redirect_uri, invalid_client_metadata
    message: string,
  ) {
    super(message);
  }
}

const shown = (value: string) => quote(value, 120);
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
export const isLoopbackName = (hostname: string) => ['localhost', '127.0.0.1', '::1'].includes(bare(hostname)) || /^127\./.test(bare(hostname));

// RFC 3986 §2: a URI is made of unreserved and reserved characters and %XX escapes, nothing else
// (no control character, space, quote or non-ASCII letter).
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;

// Why `uri` cannot be a redirect URI: https anywhere, http only to loopback (RFC 8252 §7.3), or a
// private-use scheme of a native app (e.g. cursor://…); never a fragment or a script scheme, and
// only the characters RFC 3986 allows.
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length > MAX_URI_CHARS) return `a redirect URI must be a string of at most ${MAX_URI_CHARS} characters`;
  if (!URI_CHARACTERS.test(uri))
    return `redirect URI ${shown(uri)} holds a character RFC 3986 does not allow in a URI (a control character, space, quote, non-ASCII letter or a % not followed by two hex digits); percent-encode it`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `redirect URI ${shown(uri)} is not an absolute URL`;
  }
  if (url.hash !== '' || uri.includes('#')) return `redirect URI ${shown(uri)} has a fragment, which OAuth forbids`;
  if (UNSAFE_SCHEMES.has(url.protocol)) return `redirect URI ${shown(uri)} uses the ${url.protocol} scheme, which cannot receive a code safely`;
  if (url.protocol === 'http:' && !isLoopbackName(url.hostname)) return `redirect URI ${shown(uri)} is plain http to a host that is not loopback; use https`;
  return undefined;
}

// A loopback http redirect as written, up to its port: the scheme, then the host at once (no
// userinfo), in the forms RFC 8252 §7.3 names.
const LOOPBACK_AUTHORITY = /^http:\/\/(\[::1\]|localhost|127(?:\.\d{1,3}){3})(?::\d{1,5})?(?=[/?#]|$)/;

// The string comparison OAuth asks for (RFC 9700 §2.1, RFC 6749 §3.1.2), character for
// character, except that a loopback http redirect may name any port (RFC 8252 §7.3): userinfo,
// fragment, case, path or query spelling never pass for the registered URI.
export function redirectMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  const portless = (uri: string) => {
    const match = LOOPBACK_AUTHORITY.exec(uri);
    return match ? `http://${match[1]}${uri.slice(match[0].length)}` : undefined;
  };
  const a = portless(registered);
  return a !== undefined && a === portless(given);
}

function metadataFields(doc: Record<string, unknown>, fallbackName: string): { clientName: string; redirectUris: string[] } {
  const uris = doc.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new ClientError('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`);
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientError('invalid_redirect_uri', problem);
  }
  const name = doc.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.length > MAX_CLIENT_NAME_CHARS || CONTROL_CHARACTERS.test(name))) {
    throw new ClientError('invalid_client_metadata', `client_name must be a string of at most ${MAX_CLIENT_NAME_CHARS} characters, without control characters`);
  }
  return { clientName: typeof name === 'string' && name.trim() !== '' ? name.trim() : fallbackName, redirectUris: uris as string[] };
}

// RFC 7591 §2-3: validates the request body and registers a public client (no secret). A flood
// never locks newcomers out: it only pushes out registrations that were never approved, its own
// source's first (source: the peer address, 'unix' on a socket).
export function registerClient(store: OAuthStore, body: unknown, now: number, source = 'unknown'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ClientError('invalid_client_metadata', 'send the client metadata as a JSON object');
  const doc = body as Record<string, unknown>;
  const { clientName, redirectUris } = metadataFields(doc, 'unnamed client');
  const grantTypes = doc.grant_types ?? ['authorization_code'];
  if (
    !Array.isArray(grantTypes) ||
    !grantTypes.includes('authorization_code') ||
    grantTypes.some((type) => type !== 'authorization_code' && type !== 'refresh_token')
  ) {
    throw new ClientError('invalid_client_metadata', 'grant_types must include authorization_code and may add refresh_token; nothing else is offered');
  }
  const responseTypes = doc.response_types ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.some((type) => type !== 'code'))
    throw new ClientError('invalid_client_metadata', 'response_types may only be ["code"]');
  store.pruneClients(now - 24 * 3_600_000);
  const client: OAuthClient = { clientId: clientIdFor(), kind: 'registered', clientName, redirectUris, createdAt: now };
  if (!store.registerWithin(client, source, { perSource: MAX_UNAPPROVED_PER_SOURCE, total: MAX_REGISTERED_CLIENTS })) {
    throw new ClientError(
      'invalid_client_metadata',
      `${MAX_REGISTERED_CLIENTS} clients are registered and each was approved; revoke unused ones (zodex oauth clients, zodex oauth revoke)`,
    );
  }
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: clientName,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none', // public clients only: PKCE, no secret
  };
}

// A client_id that names a metadata document, checked before anything is fetched.
function documentUrl(clientId: string, allowLoopbackDocuments: boolean): URL | undefined {
  if (!/^https?:\/\//i.test(clientId)) return undefined;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new ClientError('invalid_client', `client_id ${shown(clientId)} is not a valid URL`);
  }
  const loopback = isLoopbackName(url.hostname);
  if (url.protocol === 'http:' && !(loopback && allowLoopbackDocuments)) {
    throw new ClientError('invalid_client', `client_id ${shown(clientId)}: a client ID metadata document must be served over https`);
  }
  if (url.protocol === 'https:' && (loopback || net.isIP(bare(url.hostname)) !== 0)) {
    throw new ClientError('invalid_client', `client_id ${shown(clientId)}: zodexd does not fetch client metadata from IP addresses or loopback over https`);
  }
  if (url.pathname === '/' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ClientError('invalid_client', `client_id ${shown(clientId)} must be a URL with a path, without fragment or credentials`);
  }
  return url;
}

// The body of a document, read as it streams and given up at METADATA_MAX_BYTES: a declared
// Content-Length beyond it is refused before a byte is read, and a body that grows beyond it
// (chunked, or decompressed) is cut there, so a 128 MiB answer costs at most 64 KiB.
async function boundedText(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > METADATA_MAX_BYTES) {
    await response.body?.cancel();
    throw new Error(`it declares ${declared} bytes, more than ${METADATA_MAX_BYTES}`);
  }
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const read = await reader?.read();
    if (!read || read.done) return Buffer.concat(chunks).toString('utf8');
    size += read.value.byteLength;
    if (size > METADATA_MAX_BYTES) {
      await reader!.cancel();
      throw new Error(`larger than ${METADATA_MAX_BYTES} bytes`);
    }
    chunks.push(read.value);
  }
}

async function fetchDocument(url: URL, fetcher: typeof fetch): Promise<Record<string, unknown>> {
  let text: string;
  try {
    const response = await fetcher(url, { redirect: 'error', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(METADATA_FETCH_TIMEOUT_MS) });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    text = await boundedText(response);
  } catch (error) {
    throw new ClientError(
      'invalid_client',
      `the client metadata document ${url.href.slice(0, 200)} could not be fetched (${(error as Error).message.slice(0, 200)})`,
    );
  }
  try {
    const doc = JSON.parse(text) as unknown;
    if (typeof doc === 'object' && doc !== null && !Array.isArray(doc)) return doc as Record<string, unknown>;
  } catch {
    // below
  }
  throw new ClientError('invalid_client', `the client metadata document ${url.href.slice(0, 200)} is not a JSON object`);
}

export interface ClientLookup {
  store: OAuthStore;
  allowLoopbackDocuments: boolean;
  fetch: typeof fetch;
  now: () => number;
}

// The client a client_id names, or a ClientError saying why there is none. A metadata document's
// client is not saved here: only the operator's approval stores it (beside its grant), so
// naming documents stores nothing.
export async function resolveClient(clientId: string, lookup: ClientLookup): Promise<OAuthClient> {
  const url = documentUrl(clientId, lookup.allowLoopbackDocuments);
  if (url === undefined) {
    const client = lookup.store.client(clientId);
    if (!client || client.kind !== 'registered')
      throw new ClientError(
        'invalid_client',
        `client_id ${shown(clientId)} is not registered here; register at /oauth/register or use a client ID metadata document URL`,
      );
    return client;
  }
  if (metadataFetches >= MAX_METADATA_FETCHES) {
    throw new ClientError(
      'temporarily_unavailable',
      `zodexd is already fetching ${MAX_METADATA_FETCHES} client metadata documents; try again in a few seconds`,
    );
  }
  metadataFetches++;
  let doc;
  try {
    doc = await fetchDocument(url, lookup.fetch);
  } finally {
    metadataFetches--;
  }
  if (doc.client_id !== clientId) {
    throw new ClientError(
      'invalid_client',
      `the metadata document at ${shown(clientId)} names client_id ${shown(String(doc.client_id))}; it must be exactly its own URL`,
    );
  }
  return { clientId, kind: 'metadata', ...metadataFields(doc, url.host), createdAt: lookup.now() };
}
