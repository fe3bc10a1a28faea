// The state one authorization server keeps: the store (clients, grants, token hashes), the
// authorization requests waiting for the operator, and the codes issued but not yet exchanged
// (both in memory: they live minutes, and a restart simply asks the client to start again).

import type { OAuthClient, OAuthStore } from '../store/oauth.js';
import type { ClientLookup } from './clients.js';

export const PENDING_TTL_MS = 10 * 60_000; // the operator has ten minutes to approve
export const MAX_PENDING = 32; // requests waiting at once; more are refused, not queued
export const MAX_PAIRING_ATTEMPTS = 5; // wrong codes per request before it is refused
export const CODE_TTL_MS = 60_000; // an authorization code must be exchanged within a minute
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3_600_000;

export interface PendingRequest {
  id: string;
  csrf: string;
  client: OAuthClient;
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

export interface OAuthContext {
  store: OAuthStore;
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

// `uri` with OAuth response parameters added to its query (RFC 6749 §4.1.2).
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
