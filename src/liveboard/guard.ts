// The Liveboard's guardrails beyond transport/guard.ts's Host, Origin and bearer-token rules (which
// it applies first, as the MCP listener does). A browser cannot send a bearer header, so it shows
// the token once (?token=) and gets an HttpOnly, SameSite=Strict cookie derived from it. Every POST
// (alias, input, kill) must come from the board's own page: an Origin equal to the board's origin,
// no cross-site Sec-Fetch-Site, Content-Type application/json (a cross-site <form> cannot send it
// without a CORS preflight, which is never answered), and the page's CSRF token in
// X-Zodex-Liveboard (compared in constant time).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { checkToken, type GuardPolicy, type Verdict } from '../transport/guard.js';

export const CSRF_HEADER = 'x-zodex-liveboard';
export const AUTH_COOKIE = 'zodex_liveboard';

const OK: Verdict = { ok: true };
const digest = (value: string) => createHash('sha256').update(value).digest();

// Equal strings, compared in constant time whatever their lengths.
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

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

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

// No token configured: open. Otherwise "Authorization: Bearer <token>" or the cookie.
export function checkBoardToken(headers: IncomingHttpHeaders, policy: GuardPolicy): Verdict {
  const token = policy.token;
  if (token === undefined) return OK;
  const cookie = readCookie(headers.cookie, AUTH_COOKIE);
  if (cookie !== undefined && sameSecret(cookie, authCookieValue(token))) return OK;
  if (headers.authorization !== undefined) return checkToken(headers.authorization, policy);
  return {
    ok: false,
    status: 401,
    body: 'Unauthorized: this Liveboard requires its token. Open /?token=<token> once (the token given by --auth-token-file or ZODEX_AUTH_TOKEN); the page then keeps a cookie.\n',
    headers: { 'WWW-Authenticate': 'Bearer realm="zodex"' },
  };
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
    return refused(403, `Forbidden: actions must come from the Liveboard's own page (Origin ${origin === undefined ? '(none)' : JSON.stringify(origin)} is not ${own ?? 'this board'}).`);
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return refused(403, `Forbidden: a ${site} request cannot act on the Liveboard.`);
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return refused(415, 'Unsupported Media Type: send Content-Type: application/json.');
  const given = headers[CSRF_HEADER];
  if (typeof given !== 'string' || !sameSecret(given, csrfToken)) {
    return refused(403, 'Forbidden: missing or wrong X-Zodex-Liveboard header; reload the Liveboard page.');
  }
  return OK;
}
