// The Liveboard's guardrails beyond net/guard.ts's Host, Origin and token rules (which it applies
// first, as the MCP listener does). A browser cannot send a bearer header, so it shows the token
// once (?token=) and gets an HttpOnly, SameSite=Strict cookie derived from it, which its policy
// accepts in place of the header. Every POST (alias, input, kill) must come from the board's own
// page: an Origin equal to the board's origin, no cross-site Sec-Fetch-Site, Content-Type
// application/json (a cross-site <form> cannot send it without a CORS preflight, which is never
// answered), and the page's CSRF token in X-Zodex-Liveboard (compared in constant time).

import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { clipText, quote } from '../errors.js';
import type { ListenAddress } from '../net/address.js';
import { guardPolicy, type GuardPolicy, type Verdict } from '../net/guard.js';
import { sameSecret } from '../net/secret.js';

export const CSRF_HEADER = 'x-zodex-liveboard';
export const AUTH_COOKIE = 'zodex_liveboard';

const OK: Verdict = { ok: true };

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

// The cookie holds a value derived from the token, never the token itself (which also opens MCP).
export function authCookieValue(token: string): string {
  return createHash('sha256').update(`zodex-liveboard-cookie\0${token}`).digest('base64url');
}

export function authCookieHeader(token: string): string {
  return `${AUTH_COOKIE}=${authCookieValue(token)}; HttpOnly; SameSite=Strict; Path=/`;
}

// The token rules of a board at `listen`: the bearer header or the cookie, with the board's own 401.
export function boardPolicy(listen: ListenAddress, allowHosts: readonly string[], token: string | undefined): GuardPolicy {
  return guardPolicy(listen, allowHosts, token, {
    cookie: token === undefined ? undefined : { name: AUTH_COOKIE, value: authCookieValue(token) },
    unauthorized:
      'Unauthorized: this Liveboard requires its token. Open /?token=<token> once (the token given by --auth-token-file or ZODEX_AUTH_TOKEN); the page then keeps a cookie.\n',
  });
}

function refused(status: number, body: string): Verdict {
  return { ok: false, status, body: `${body}\n` };
}

// The board's own origin, from the Host header the request was sent to (already checked).
export function ownOrigin(headers: IncomingHttpHeaders): string | undefined {
  return headers.host ? `http://${headers.host.toLowerCase()}` : undefined;
}

export function checkPost(headers: IncomingHttpHeaders, csrfToken: string): Verdict {
  const origin = headers.origin;
  const own = ownOrigin(headers);
  if (origin === undefined || own === undefined || origin.toLowerCase() !== own) {
    return refused(403, `Forbidden: actions must come from the Liveboard's own page (Origin ${origin === undefined ? '(none)' : quote(origin)} is not ${own ?? 'this board'}).`);
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return refused(403, `Forbidden: a ${clipText(site, 40)} request cannot act on the Liveboard.`);
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return refused(415, 'Unsupported Media Type: send Content-Type: application/json.');
  const given = headers[CSRF_HEADER];
  if (typeof given !== 'string' || !sameSecret(given, csrfToken)) {
    return refused(403, 'Forbidden: missing or wrong X-Zodex-Liveboard header; reload the Liveboard page.');
  }
  return OK;
}
