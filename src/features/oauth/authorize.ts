// The authorization endpoint (OAuth 2.1 §4.1, PKCE S256 only) and the operator's decision.
// Flow: GET /oauth/authorize -> client resolved and redirect_uri matched (until then errors are a
// page, never a redirect) -> request checked (errors go back to the client with iss, RFC 9207)
// -> a pending request with its own CSRF token and a pairing code printed on stderr -> the
// approval page -> POST /oauth/authorize/decision with the code -> grant + authorization code.

import { randomBytes } from 'node:crypto';
import { quote } from '../../errors.js';
import { sameSecret } from '../../net/secret.js';
import { ClientError, redirectMatches, resolveClient } from './clients.js';
import {
  CODE_TTL_MS,
  makeRoom,
  MAX_PAIRING_ATTEMPTS,
  PENDING_TTL_MS,
  repeatedParameter,
  sweep,
  withParams,
  type OAuthContext,
  type PendingRequest,
} from './context.js';
import { grantId, hashSecret, newPairingCode, normalizePairingCode, PKCE_VALUE, secret } from './secrets.js';
import { SCOPE, type Endpoints } from './urls.js';

export type AuthorizeOutcome =
  | { kind: 'page'; request: PendingRequest }
  | { kind: 'error-page'; status: number; message: string }
  | { kind: 'redirect'; location: string };

export type DecisionOutcome = { status: number; body: { redirect?: string; error?: string; attemptsLeft?: number } };

// A client's self-chosen name on a log line: quoted and bounded, never raw.
const shownName = (client: { clientName: string }) => quote(client.clientName, 80);

const IGNORED_SCOPES = new Set(['offline_access']); // refresh tokens are always issued

function scopeProblem(scope: string | null): string | undefined {
  if (scope === null) return undefined;
  const unknown = scope.split(' ').filter((item) => item !== '' && item !== SCOPE && !IGNORED_SCOPES.has(item));
  return unknown.length ? `scope ${quote(unknown.join(' '), 100)} is not offered; ask for "${SCOPE}"` : undefined;
}

// source: the peer address of the request ('unix' on a socket), for the bound on pending requests.
export async function authorize(query: URLSearchParams, at: Endpoints, context: OAuthContext, source = 'unknown'): Promise<AuthorizeOutcome> {
  sweep(context);
  // Who the client is and where to answer it cannot be trusted when given twice: a page, no redirect.
  const twice = repeatedParameter(query, ['client_id', 'redirect_uri']);
  if (twice) return { kind: 'error-page', status: 400, message: `${twice} appears more than once in the authorization request; send each parameter once.` };
  const clientId = query.get('client_id');
  if (!clientId) return { kind: 'error-page', status: 400, message: 'client_id is missing from the authorization request.' };
  let client;
  try {
    client = await resolveClient(clientId, context.clients);
  } catch (error) {
    if (error instanceof ClientError) return { kind: 'error-page', status: error.error === 'temporarily_unavailable' ? 503 : 400, message: error.message };
    throw error;
  }
  const given = query.get('redirect_uri');
  const redirectUri = given ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri === undefined || !client.redirectUris.some((registered) => redirectMatches(registered, redirectUri))) {
    const why = given === null ? 'redirect_uri is missing and the client registered several' : `redirect_uri ${quote(given)} is not one the client registered`;
    return { kind: 'error-page', status: 400, message: `${why}; no code is sent to an unregistered address.` };
  }
  const state = query.get('state') ?? undefined;
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: 'redirect',
    location: withParams(redirectUri, { error, error_description: description, state, iss: at.issuer }),
  });
  const repeated = repeatedParameter(query);
  if (repeated) return fail('invalid_request', `${quote(repeated, 40)} appears more than once; send each parameter once`);
  if (query.get('response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code');
  const challenge = query.get('code_challenge');
  if (challenge === null || !PKCE_VALUE.test(challenge)) return fail('invalid_request', 'code_challenge (PKCE, 43-128 characters) is required');
  if (query.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  const resource = query.get('resource') ?? at.resource;
  if (resource !== at.resource) return fail('invalid_target', `resource must be ${at.resource}, the MCP endpoint of this server`);
  const badScope = scopeProblem(query.get('scope'));
  if (badScope) return fail('invalid_scope', badScope);
  makeRoom(context, client.clientId, source);

  const pairingCode = newPairingCode();
  const request: PendingRequest = {
    id: randomBytes(18).toString('base64url'),
    csrf: randomBytes(32).toString('base64url'),
    client,
    source,
    redirectUri,
    redirectGiven: given !== null,
    codeChallenge: challenge,
    resource,
    scope: SCOPE,
    state,
    issuer: at.issuer,
    expiresAt: context.now() + PENDING_TTL_MS,
    attempts: 0,
    pairingHash: hashSecret(normalizePairingCode(pairingCode)),
  };
  context.pending.set(request.id, request);
  context.log(
    `oauth: ${shownName(client)} (redirect to ${new URL(redirectUri).host || quote(redirectUri, 80)}) asks for access; ` +
      `pairing code ${pairingCode}, valid ${PENDING_TTL_MS / 60_000} minutes (or run: zodex oauth pair)`,
  );
  return { kind: 'page', request };
}

// A pairing code is the one printed for this request, or one `zodex oauth pair` made (one use).
function pairingCodeMatches(typed: string, request: PendingRequest, context: OAuthContext): boolean {
  const hash = hashSecret(normalizePairingCode(typed));
  return sameSecret(hash, request.pairingHash) || context.store.consumePairingCode(hash, context.now());
}

export function decide(request: PendingRequest, body: Record<string, unknown>, context: OAuthContext): DecisionOutcome {
  const back = (params: Record<string, string | undefined>) => withParams(request.redirectUri, { ...params, state: request.state, iss: request.issuer });
  if (body.approve !== true) {
    context.pending.delete(request.id);
    context.log(`oauth: the operator denied ${shownName(request.client)}`);
    return { status: 200, body: { redirect: back({ error: 'access_denied', error_description: 'the operator denied the request' }) } };
  }
  const typed = typeof body.pairing_code === 'string' ? body.pairing_code : '';
  if (!pairingCodeMatches(typed, request, context)) {
    request.attempts++;
    const attemptsLeft = MAX_PAIRING_ATTEMPTS - request.attempts;
    if (attemptsLeft > 0) return { status: 403, body: { error: `wrong pairing code; ${attemptsLeft} attempt(s) left`, attemptsLeft } };
    context.pending.delete(request.id);
    context.log(`oauth: refused ${shownName(request.client)} after ${MAX_PAIRING_ATTEMPTS} wrong pairing codes`);
    return {
      status: 403,
      body: {
        error: 'too many wrong pairing codes; the request is refused',
        redirect: back({ error: 'access_denied', error_description: 'wrong pairing code' }),
      },
    };
  }
  context.pending.delete(request.id);
  const now = context.now();
  const id = grantId();
  const { client } = request;
  const audience = context.audience!; // a request reached this server, so it listens
  // The client is stored with its grant (a metadata document's for the first time; a registration
  // that was evicted meanwhile again), never before the operator admitted it.
  context.store.db.transaction(() => {
    context.store.saveClient(client);
    context.store.createGrant({
      id,
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri: request.redirectUri,
      resource: request.resource,
      audience,
      scope: request.scope,
      createdAt: now,
    });
  })();
  const code = secret('zac_');
  context.codes.set(hashSecret(code), {
    grantId: id,
    clientId: client.clientId,
    redirectUri: request.redirectUri,
    redirectGiven: request.redirectGiven,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scope: request.scope,
    expiresAt: now + CODE_TTL_MS,
    used: false,
  });
  context.log(`oauth: the operator approved ${shownName(client)}: grant ${id} (zodex oauth revoke ${id} ends it)`);
  return { status: 200, body: { redirect: back({ code }) } };
}
