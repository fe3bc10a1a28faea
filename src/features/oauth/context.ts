// The state one authorization server keeps: the store (clients, grants, token hashes), the
// authorization requests waiting for the operator, and the codes issued but not yet exchanged
// (both in memory: they live minutes, and a restart simply asks the client to start again).

import type { OAuthClient, OAuthStore } from '../store/oauth.js';
import type { ClientLookup } from './clients.js';

export const PENDING_TTL_MS = 10 * 60_000; // the operator has ten minutes to approve
// Requests waiting at once, and of one client or one source (peer address) among them: a newcomer
// is never refused, it pushes out the oldest waiting request (its client's, else its source's,
// else anyone's), so a flood cannot lock a real client out for the ten minutes of a request.
export const MAX_PENDING = 32;
export const MAX_PENDING_PER_CLIENT = 4;
export const MAX_PENDING_PER_SOURCE = 16;
export const MAX_PAIRING_ATTEMPTS = 5; // wrong codes per request before it is refused
export const CODE_TTL_MS = 60_000; // an authorization code must be exchanged within a minute
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3_600_000;
// A used refresh token presented again this soon after its exchange is refused without revoking
// the grant (two tabs or processes refreshing at once); later, it is taken for a stolen copy.
export const REFRESH_REUSE_GRACE_MS = 10_000;

export interface PendingRequest {
  id: string;
  csrf: string;
  client: OAuthClient;
  source: string; // the peer address it came from ('unix' on a socket)
  redirectUri: string;
  redirectGiven: boolean; // redirect_uri was in the request, so the token request must repeat it
  codeChallenge: string;
  resource: string;
  scope: string;
  state: string | undefined;
  issuer: string;
  expiresAt: number;
  attempts: number;
  pairingHash: string; // the code printed on stderr for this request
}

export interface IssuedCode {
  grantId: string;
  clientId: string;
  redirectUri: string;
  redirectGiven: boolean;
  codeChallenge: string;
  resource: string;
  scope: string;
  expiresAt: number;
  used: boolean; // kept until it expires, so that a replay is recognised (and revokes the grant)
}

// Where minted tokens are registered as secrets (src/secrets.ts's SecretRegistry).
export interface MintedSecrets {
  add(name: string, value: string, expiresAt?: number): void;
  delete(value: string): void;
}

export interface OAuthContext {
  store: OAuthStore;
  secrets?: MintedSecrets | undefined;
  // Who this zodexd is, as the audience of the tokens it issues: its listener ('tcp:HOST:PORT',
  // 'unix:PATH'), known once it listens (until then nothing is issued or accepted).
  audience: string | undefined;
  clients: ClientLookup;
  now: () => number;
  log: (message: string) => void;
  accessTokenTtlMs: number;
  pending: Map<string, PendingRequest>;
  codes: Map<string, IssuedCode>; // by the code's hash
  revoked(grantId: string): void; // this server revoked a grant (a replay): end what it runs now
}

// Forgets what expired; called before each authorization and token request.
export function sweep(context: OAuthContext): void {
  const now = context.now();
  for (const [id, request] of context.pending) if (request.expiresAt <= now) context.pending.delete(id);
  for (const [hash, code] of context.codes) if (code.expiresAt <= now) context.codes.delete(hash);
}

// Makes room for one more pending request of `clientId` from `source` (see MAX_PENDING).
export function makeRoom(context: OAuthContext, clientId: string, source: string): void {
  const waiting = [...context.pending.values()]; // oldest first: a Map keeps insertion order
  const oldest = (of: (request: PendingRequest) => boolean, cap: number) => {
    const matching = waiting.filter(of);
    return matching.length >= cap ? matching[0] : undefined;
  };
  const evicted =
    oldest((request) => request.client.clientId === clientId, MAX_PENDING_PER_CLIENT) ??
    oldest((request) => request.source === source, MAX_PENDING_PER_SOURCE) ??
    oldest(() => true, MAX_PENDING);
  if (evicted) context.pending.delete(evicted.id);
}

// The first parameter `params` holds more than once, if any: OAuth refuses the request
// (RFC 6749 §3.1: "MUST NOT be included more than once"), never serves one of the values.
export function repeatedParameter(params: URLSearchParams, among?: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name) && (among === undefined || among.includes(name))) return name;
    seen.add(name);
  }
  return undefined;
}

// `uri` with OAuth response parameters added to its query (RFC 6749 §4.1.2).
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
