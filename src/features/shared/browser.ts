// The rules for pages zodex serves to a browser (the Liveboard, the OAuth approval page): one
// nonce-based CSP with nothing fetched from elsewhere, the same security headers, and one check
// for every state-changing POST: the page's own Origin, no cross-site Sec-Fetch-Site, Content-Type
// application/json (a cross-site <form> cannot send it without a preflight, never answered) and
// the page's CSRF token in a header, compared in constant time.

import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { clipText, quote } from '../../errors.js';
import { sameSecret } from '../../net/secret.js';

export type PostVerdict = { ok: true } | { ok: false; status: number; body: string };

export const SECURITY_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

// Text safe inside HTML content and double- or single-quoted attributes.
export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

const refused = (status: number, body: string): PostVerdict => ({ ok: false, status, body: `${body}\n` });

// `ownOrigin`: the page's origin as the browser sees it (scheme://host[:port], lower case).
export function checkPagePost(headers: IncomingHttpHeaders, ownOrigin: string | undefined, csrf: { header: string; token: string; page: string }): PostVerdict {
  const origin = headers.origin;
  if (origin === undefined || ownOrigin === undefined || origin.toLowerCase() !== ownOrigin) {
    return refused(
      403,
      `Forbidden: actions must come from the ${csrf.page}'s own page (Origin ${origin === undefined ? '(none)' : quote(origin)} is not ${ownOrigin ?? 'this page'}).`,
    );
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return refused(403, `Forbidden: a ${clipText(site, 40)} request cannot act on the ${csrf.page}.`);
  const type = (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return refused(415, 'Unsupported Media Type: send Content-Type: application/json.');
  const given = headers[csrf.header];
  if (typeof given !== 'string' || !sameSecret(given, csrf.token)) {
    const shown = csrf.header.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
    return refused(403, `Forbidden: missing or wrong ${shown} header; reload the ${csrf.page} page.`);
  }
  return { ok: true };
}
