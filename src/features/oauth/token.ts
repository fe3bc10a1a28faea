// The token endpoint (OAuth 2.1 §3.2): an authorization code with its PKCE verifier, or a refresh
// token, for a new access token and a new refresh token. Refresh tokens rotate: each works once,
// and presenting a used one again (a stolen copy, or the client's own replay) revokes the grant,
// unless it comes within REFRESH_REUSE_GRACE_MS of its exchange (two tabs refreshing at once):
// then it is only refused. An authorization code is checked (client, redirect, PKCE) before it
// is spent, so a copy presented without its verifier spends nothing; presented again after a
// successful exchange, it revokes its grant (§4.1.3). Answers are RFC 6749 §5 JSON.

import { quote } from '../../errors.js';
import { REFRESH_REUSE_GRACE_MS, REFRESH_TOKEN_TTL_MS, repeatedParameter, sweep, type OAuthContext } from './context.js';
import { hashSecret, PKCE_VALUE, s256, secret } from './secrets.js';
import { audienceProblem, type Endpoints } from './urls.js';

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

const refuse = (error: string, description: string, status = 400): TokenAnswer => ({ status, body: { error, error_description: description } });

function issue(grantId: string, scope: string, context: OAuthContext): TokenAnswer {
  const now = context.now();
  const accessToken = secret('zat_');
  const refreshToken = secret('zrt_');
  context.store.db.transaction(() => {
    context.store.addToken(hashSecret(accessToken), grantId, 'access', now + context.accessTokenTtlMs);
    context.store.addToken(hashSecret(refreshToken), grantId, 'refresh', now + REFRESH_TOKEN_TTL_MS);
    context.store.touchGrant(grantId, now);
  })();
  context.secrets?.add('OAUTH_ACCESS_TOKEN', accessToken, now + context.accessTokenTtlMs);
  context.secrets?.add('OAUTH_REFRESH_TOKEN', refreshToken, now + REFRESH_TOKEN_TTL_MS);
  return {
    status: 200,
    body: {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.floor(context.accessTokenTtlMs / 1000)),
      refresh_token: refreshToken,
      scope,
    },
  };
}

function exchangeCode(form: URLSearchParams, at: Endpoints, context: OAuthContext): TokenAnswer {
  const code = form.get('code');
  const verifier = form.get('code_verifier');
  if (!code) return refuse('invalid_request', 'code is required');
  if (!verifier || !PKCE_VALUE.test(verifier)) return refuse('invalid_request', 'code_verifier (43-128 characters) is required');
  const issued = context.codes.get(hashSecret(code));
  if (!issued) return refuse('invalid_grant', 'the authorization code is unknown or expired; authorize again');
  // Everything the presenter must prove, before anything is spent: an intercepted code presented
  // with a wrong verifier or client_id leaves it to the client it was issued to.
  if (form.get('client_id') !== issued.clientId) return refuse('invalid_grant', 'the authorization code was issued to another client_id');
  const redirectUri = form.get('redirect_uri');
  if ((redirectUri ?? (issued.redirectGiven ? null : issued.redirectUri)) !== issued.redirectUri) {
    return refuse('invalid_grant', 'redirect_uri differs from the one of the authorization request');
  }
  if (s256(verifier) !== issued.codeChallenge) return refuse('invalid_grant', 'PKCE verification failed: code_verifier does not match the code_challenge');
  const resource = form.get('resource');
  if (resource !== null && resource !== issued.resource) return refuse('invalid_target', `resource must be ${issued.resource}`);
  if (issued.resource !== at.resource) return refuse('invalid_target', `the code was issued for ${issued.resource}, not ${at.resource}`);
  if (issued.used) {
    context.store.revokeGrant(issued.grantId, 'authorization code replayed', context.now());
    context.log(`oauth: an authorization code of grant ${issued.grantId} was presented twice; the grant is revoked`);
    context.revoked(issued.grantId);
    return refuse('invalid_grant', 'the authorization code was already used; its grant is revoked, authorize again');
  }
  issued.used = true;
  const grant = context.store.grant(issued.grantId);
  if (!grant || grant.revokedAt !== null) return refuse('invalid_grant', 'the grant was revoked; authorize again');
  return issue(grant.id, grant.scope, context);
}

function refresh(form: URLSearchParams, at: Endpoints, context: OAuthContext): TokenAnswer {
  const token = form.get('refresh_token');
  if (!token) return refuse('invalid_request', 'refresh_token is required');
  const hash = hashSecret(token);
  const row = context.store.token(hash);
  const now = context.now();
  if (!row || row.kind !== 'refresh' || row.grant.revokedAt !== null)
    return refuse('invalid_grant', 'the refresh token is unknown, expired or revoked; authorize again');
  if (form.get('client_id') !== row.grant.clientId) return refuse('invalid_grant', 'the refresh token was issued to another client_id');
  if (row.expiresAt <= now) return refuse('invalid_grant', 'the refresh token expired; authorize again');
  const resource = form.get('resource');
  if (resource !== null && resource !== row.grant.resource) return refuse('invalid_target', `resource must be ${row.grant.resource}`);
  if (row.grant.resource !== at.resource) return refuse('invalid_target', `the grant is for ${row.grant.resource}, not ${at.resource}`);
  const other = audienceProblem(row.grant.audience, context.audience);
  if (other) return refuse('invalid_grant', `the refresh token ${other}; authorize again`);
  const rotated = row.rotatedAt !== null || !context.store.rotateRefreshToken(hash, now);
  // Exchanged moments ago (or right now, by another request): a parallel refresh, not a theft.
  if (rotated && now - (row.rotatedAt ?? now) <= REFRESH_REUSE_GRACE_MS) {
    return refuse('invalid_grant', 'the refresh token was exchanged moments ago by another request (a parallel refresh); use the tokens that request received');
  }
  if (rotated) {
    context.secrets?.delete(token);
    context.store.revokeGrant(row.grantId, 'refresh token reused', now);
    context.log(`oauth: a used refresh token of grant ${row.grantId} was presented again; the grant is revoked`);
    context.revoked(row.grantId);
    return refuse('invalid_grant', 'the refresh token was already used; its grant is revoked, authorize again');
  }
  context.secrets?.delete(token); // spent: presenting it again only revokes its grant
  return issue(row.grantId, row.grant.scope, context);
}

export function tokenRequest(form: URLSearchParams, at: Endpoints, context: OAuthContext): TokenAnswer {
  sweep(context);
  const repeated = repeatedParameter(form);
  if (repeated) return refuse('invalid_request', `${quote(repeated, 40)} appears more than once; send each parameter once`);
  const grantType = form.get('grant_type');
  if (grantType === 'authorization_code') return exchangeCode(form, at, context);
  if (grantType === 'refresh_token') return refresh(form, at, context);
  return refuse('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}
