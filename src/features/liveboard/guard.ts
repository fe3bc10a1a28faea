// The Liveboard's guardrails beyond net/guard.ts's Host, Origin and token rules (which it applies
// first, as the MCP listener does). A browser cannot send a bearer header, so it shows the token
// once (?token=) and gets an HttpOnly, SameSite=Strict cookie derived from it, which its policy
// accepts in place of the header. Every POST (alias, input, kill, revoke) must come from the board's
// own page, by features/shared/browser.ts's rule (shared with the OAuth approval page): an Origin equal to the
// board's origin, no cross-site Sec-Fetch-Site, Content-Type application/json, and the page's CSRF
// token in X-Zodex-Liveboard (compared in constant time).

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ListenAddress } from '../../net/address.js';
import { guardPolicy, type GuardPolicy, type Verdict } from '../../net/guard.js';
import { checkPagePost } from '../shared/browser.js';

export const CSRF_HEADER = 'x-zodex-liveboard';
export const AUTH_COOKIE = 'zodex_liveboard';

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

// The board's own origin, from the Host header the request was sent to (already checked).
export function ownOrigin(headers: IncomingHttpHeaders): string | undefined {
  return headers.host ? `http://${headers.host.toLowerCase()}` : undefined;
}

export function checkPost(headers: IncomingHttpHeaders, csrfToken: string): Verdict {
  return checkPagePost(headers, ownOrigin(headers), { header: CSRF_HEADER, token: csrfToken, page: 'Liveboard' });
}
