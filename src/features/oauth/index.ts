// zodexd's built-in OAuth 2.1 authorization server and the bearer rule of its MCP endpoint (only
// with --oauth). handle() answers the OAuth paths: RFC 9728 resource metadata (root and /mcp
// forms), RFC 8414 server metadata, authorize + the operator's decision, token, RFC 7591
// register; authenticate() checks an MCP request's bearer token. It is the HTTP transport's
// authenticator (HttpAuthenticator): transport calls both, after its Host/Origin rules and before its 404. A grant this server accepted that gets revoked (here, by
// `zodex oauth revoke` or a Liveboard: the watcher reads the state database) is told to
// onRevoked's listeners, which end its sessions and kill its commands.

import type http from 'node:http';
import type { HttpAuthenticator } from '../../transport/http/serve.js';
import { checkPagePost, contentSecurityPolicy, newNonce, SECURITY_HEADERS } from '../shared/browser.js';
import { readBodyText } from '../../net/body.js';
import type { OAuthStore } from '../store/oauth.js';
import { authorize, decide } from './authorize.js';
import { BearerCheck } from './bearer.js';
import { ClientError, registerClient } from './clients.js';
import { PENDING_TTL_MS, type MintedSecrets, type OAuthContext } from './context.js';
import { hashSecret, newPairingCode, normalizePairingCode } from './secrets.js';
import { APPROVAL_CSRF_HEADER, renderApprovalPage, renderErrorPage } from './page.js';
import { tokenRequest } from './token.js';
import { authorizationServerMetadata, baseOf, endpoints, PATHS, protectedResourceMetadata, type Endpoints } from './urls.js';

export { PATHS } from './urls.js';
export { PENDING_TTL_MS as PAIRING_CODE_TTL_MS } from './context.js';

// `zodex oauth pair`: a code any waiting authorization request accepts once, for ten minutes.
export function issuePairingCode(store: OAuthStore, now: number): string {
  const code = newPairingCode();
  store.addPairingCode(hashSecret(normalizePairingCode(code)), now, now + PENDING_TTL_MS);
  return code;
}

const MAX_BODY_BYTES = 64 * 1024;
const BODY_TIMEOUT_MS = 10_000;
const PRUNE_EVERY_MS = 10 * 60_000;
// How often the grants in use are checked for a revocation made elsewhere (a cheap read unless
// the database changed): a revoked client's commands end within about this long.
export const REVOCATION_CHECK_MS = 1_000;

export interface OAuthOptions {
  store: OAuthStore; // owned from now on: close() closes it
  publicOrigin: string | undefined; // --public-url's origin
  staticToken: string | undefined; // keeps working beside OAuth
  accessTokenTtlMs: number;
  allowLoopbackClientDocuments: boolean;
  log: (message: string) => void;
  now?: () => number;
  fetch?: typeof fetch;
  // Every token minted is added here (and a refresh token spent is removed), so that no output
  // shows it, also of a command that started before it was minted.
  secrets?: MintedSecrets;
}

// listening(): the listener this zodexd bound is the audience of its tokens; authenticate(): the
// principal is the grant's id ('static' for the static token).
export interface OAuth extends HttpAuthenticator {
  // Called with each grant whose tokens this server accepted, once it is revoked.
  onRevoked(listener: (grantId: string) => void): void;
}

function send(res: http.ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, Pragma: 'no-cache', 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

// Where a request came from, for the per-source bounds: its peer address ('unix' on a socket,
// where every peer is this user's; behind a tunnel every client is the tunnel's address).
const sourceOf = (req: http.IncomingMessage) => req.socket.remoteAddress ?? 'unix';

const sendJson = (res: http.ServerResponse, status: number, value: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
const oauthError = (res: http.ServerResponse, status: number, error: string, description: string) =>
  sendJson(res, status, { error, error_description: description });

function sendHtml(res: http.ServerResponse, status: number, render: (nonce: string) => string): void {
  const nonce = newNonce();
  send(res, status, 'text/html; charset=utf-8', render(nonce), { 'Content-Security-Policy': contentSecurityPolicy(nonce) });
}

export function createOAuth(options: OAuthOptions): OAuth {
  const now = options.now ?? Date.now;
  const inUse = new Set<string>(); // grants whose access tokens this server accepted
  const listeners = new Set<(grantId: string) => void>();
  const ended = (grantId: string) => {
    if (!inUse.delete(grantId)) return;
    for (const listener of listeners) listener(grantId);
  };
  const context: OAuthContext = {
    store: options.store,
    clients: { store: options.store, allowLoopbackDocuments: options.allowLoopbackClientDocuments, fetch: options.fetch ?? fetch, now },
    now,
    log: options.log,
    audience: undefined,
    accessTokenTtlMs: options.accessTokenTtlMs,
    secrets: options.secrets,
    pending: new Map(),
    codes: new Map(),
    revoked: ended,
  };
  const bearer = new BearerCheck(options.store, options.staticToken, now, options.log, () => context.audience);
  const pruner = setInterval(() => {
    try {
      options.store.prune(now());
    } catch (error) {
      options.log(`oauth: pruning expired tokens failed: ${(error as Error).message}`);
    }
  }, PRUNE_EVERY_MS);
  pruner.unref();
  let watchFailed = false;
  const watcher = setInterval(() => {
    if (inUse.size === 0) return;
    try {
      if (options.store.changedElsewhere()) for (const grantId of options.store.revokedAmong(inUse)) ended(grantId);
      watchFailed = false;
    } catch (error) {
      // Tokens are refused meanwhile (the bearer check fails closed); said once per failure spell.
      if (!watchFailed) options.log(`oauth: cannot check the grants for revocations: ${(error as Error).message}`);
      watchFailed = true;
    }
  }, REVOCATION_CHECK_MS);
  watcher.unref();
  const at = (req: http.IncomingMessage): Endpoints | undefined => {
    const base = baseOf(req.headers.host, options.publicOrigin);
    return base === undefined ? undefined : endpoints(base);
  };

  const routes: Record<
    string,
    { method: 'GET' | 'POST'; run: (req: http.IncomingMessage, res: http.ServerResponse, where: Endpoints, url: URL) => Promise<void> | void }
  > = {
    [PATHS.resourceMetadata]: { method: 'GET', run: (_req, res, where) => sendJson(res, 200, protectedResourceMetadata(where)) },
    [PATHS.resourceMetadataForMcp]: { method: 'GET', run: (_req, res, where) => sendJson(res, 200, protectedResourceMetadata(where)) },
    [PATHS.serverMetadata]: { method: 'GET', run: (_req, res, where) => sendJson(res, 200, authorizationServerMetadata(where)) },
    [PATHS.authorize]: {
      method: 'GET',
      run: async (req, res, where, url) => {
        // A HEAD (a link preview, a crawler) asks nothing of anyone: no request, no pairing code,
        // no metadata document fetched.
        if (req.method === 'HEAD') return send(res, 200, 'text/html; charset=utf-8', '');
        const outcome = await authorize(url.searchParams, where, context, sourceOf(req));
        if (outcome.kind === 'redirect') return send(res, 302, 'text/plain; charset=utf-8', 'Found\n', { Location: outcome.location });
        if (outcome.kind === 'error-page') return sendHtml(res, outcome.status, (nonce) => renderErrorPage(outcome.message, nonce));
        sendHtml(res, 200, (nonce) => renderApprovalPage(outcome.request, nonce));
      },
    },
    [PATHS.decision]: {
      method: 'POST',
      run: async (req, res, where, url) => {
        const id = url.searchParams.get('request') ?? '';
        const waiting = () => {
          const request = context.pending.get(id);
          return request && request.expiresAt > now() ? request : undefined;
        };
        const gone = () => sendJson(res, 404, { error: 'this authorization request is unknown or expired; start again from the client' });
        const request = waiting();
        if (!request) return gone();
        const verdict = checkPagePost(req.headers, where.base, { header: APPROVAL_CSRF_HEADER, token: request.csrf, page: 'approval' });
        if (!verdict.ok) return sendJson(res, verdict.status, { error: verdict.body.trim() });
        const body = await readJson(req);
        if (!body.ok) return sendJson(res, body.status, { error: body.message });
        // Looked up again once the body is here, and decided in the same turn: a decision that was
        // in flight meanwhile (a fifth wrong code, an approval) has ended the request, and this one
        // must not count a sixth attempt or mint a second grant.
        if (waiting() !== request) return gone();
        const outcome = decide(request, body.value, context);
        sendJson(res, outcome.status, outcome.body);
      },
    },
    [PATHS.token]: {
      method: 'POST',
      run: async (req, res, where) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/x-www-form-urlencoded')
          return oauthError(res, 400, 'invalid_request', 'send the token request as application/x-www-form-urlencoded');
        const body = await readBodyText(req, MAX_BODY_BYTES, undefined, { timeoutMs: BODY_TIMEOUT_MS });
        if (!body.ok) return oauthError(res, body.status, 'invalid_request', body.message);
        const answer = tokenRequest(new URLSearchParams(body.text), where, context);
        sendJson(res, answer.status, answer.body);
      },
    },
    [PATHS.register]: {
      method: 'POST',
      run: async (req, res) => {
        const body = await readJson(req);
        if (!body.ok) return oauthError(res, body.status === 413 ? 413 : 400, 'invalid_client_metadata', body.message);
        try {
          sendJson(res, 201, registerClient(options.store, body.value, now(), sourceOf(req)));
        } catch (error) {
          if (!(error instanceof ClientError)) throw error;
          oauthError(res, 400, error.error, error.message);
        }
      },
    },
  };

  return {
    listening(audience) {
      context.audience = audience;
    },
    async handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://zodex.invalid');
      const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : undefined;
      if (!route) return false;
      if (req.method !== route.method && !(route.method === 'GET' && req.method === 'HEAD')) {
        send(res, 405, 'text/plain; charset=utf-8', `Method Not Allowed: use ${route.method}\n`, { Allow: route.method });
        return true;
      }
      const where = at(req);
      if (!where) {
        send(res, 400, 'text/plain; charset=utf-8', 'Bad Request: no usable Host header\n');
        return true;
      }
      await route.run(req, res, where, url);
      return true;
    },
    authenticate(req) {
      const where = at(req);
      if (!where) return { ok: false, status: 400, body: 'Bad Request: no usable Host header\n', headers: {} };
      const verdict = bearer.check(req.headers.authorization, where);
      if (!verdict.ok) return verdict;
      if (verdict.grantId !== undefined) inUse.add(verdict.grantId);
      return { ok: true, principal: verdict.grantId ?? 'static' };
    },
    notice: "oauth: authorization server on; each new client needs the operator's approval with a pairing code",
    onRevoked(listener) {
      listeners.add(listener);
    },
    close() {
      clearInterval(pruner);
      clearInterval(watcher);
      context.pending.clear();
      context.codes.clear();
      options.store.close();
    },
  };
}

async function readJson(req: http.IncomingMessage): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; status: number; message: string }> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return { ok: false, status: 415, message: 'send Content-Type: application/json' };
  const body = await readBodyText(req, MAX_BODY_BYTES, undefined, { timeoutMs: BODY_TIMEOUT_MS });
  if (!body.ok) return body;
  try {
    const value = JSON.parse(body.text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> };
  } catch {
    // below
  }
  return { ok: false, status: 400, message: 'the body is not a JSON object' };
}
