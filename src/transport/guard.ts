// The HTTP guardrails as pure decisions: the Host rule (DNS-rebinding protection on a loopback
// bind), the Origin rule (MCP 2025-11-25: a foreign Origin is refused), and the bearer token.
// http.ts applies them, in this order, to every request before anything else happens.

import { createHash, timingSafeEqual } from 'node:crypto';
import { isLoopbackHost } from '../cli/config.js';

export interface GuardPolicy {
  loopbackBind: boolean;
  allowHosts: readonly string[]; // lower-case host names
  listenHost: string;
  token: string | undefined;
}

export type Verdict = { ok: true } | { ok: false; status: number; body: string; headers?: Record<string, string> };

const OK: Verdict = { ok: true };

// "host:port", "[v6]:port", "host" -> lower-case host name without brackets; undefined if malformed.
export function hostnameOf(hostHeader: string): string | undefined {
  const value = hostHeader.trim().toLowerCase();
  if (value === '') return undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end === -1) return undefined;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    return value.slice(1, end);
  }
  const match = /^([^:]+)(?::\d{1,5})?$/.exec(value);
  return match ? match[1] : undefined;
}

function admitted(host: string, policy: GuardPolicy): boolean {
  return isLoopbackHost(host) || policy.allowHosts.includes(host);
}

export function checkHost(hostHeader: string | undefined, policy: GuardPolicy): Verdict {
  if (!policy.loopbackBind) return OK; // a non-loopback bind was a deliberate act: no Host rule
  const host = hostHeader === undefined ? undefined : hostnameOf(hostHeader);
  if (host !== undefined && admitted(host, policy)) return OK;
  const shown = hostHeader === undefined ? '(none)' : JSON.stringify(hostHeader);
  const name = host ?? 'NAME';
  return {
    ok: false,
    status: 403,
    body: `Forbidden: invalid Host header ${shown}. zodexd listens on loopback and only answers requests addressed to loopback names; start it with --allow-host ${name} to admit this name.\n`,
  };
}

export function checkOrigin(origin: string | undefined, policy: GuardPolicy): Verdict {
  if (origin === undefined) return OK; // not a browser, or a same-origin request that sent none
  let host: string | undefined;
  try {
    host = new URL(origin).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    host = undefined;
  }
  if (host && (admitted(host, policy) || (!policy.loopbackBind && host === policy.listenHost.toLowerCase()))) return OK;
  return {
    ok: false,
    status: 403,
    body: `Forbidden: invalid Origin header ${JSON.stringify(origin)}. Requests from web pages of other origins are refused; a trusted origin's host can be admitted with --allow-host NAME.\n`,
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function checkToken(authorization: string | undefined, policy: GuardPolicy): Verdict {
  if (policy.token === undefined) return OK;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  // Comparing fixed-length digests keeps the comparison constant-time whatever the lengths.
  if (match && timingSafeEqual(digest(match[1]!), digest(policy.token))) return OK;
  return {
    ok: false,
    status: 401,
    body: `Unauthorized: this zodexd requires "Authorization: Bearer <token>" (the token given to it by --auth-token-file or ZODEX_AUTH_TOKEN).\n`,
    headers: { 'WWW-Authenticate': 'Bearer realm="zodex"' },
  };
}
