// The HTTP guardrails of every zodex listener as pure decisions on request headers: the Host
// rule (DNS-rebinding protection on a loopback bind), the Origin rule (MCP 2025-11-25: a foreign
// Origin is refused) and the token (a bearer header, or a cookie standing for it). The MCP
// listener and the Liveboard apply them in this order, each with its own GuardPolicy.

import { clipText, quote } from '../errors.js';
import { isLoopbackHost, type ListenAddress } from './address.js';
import { sameSecret } from './secret.js';

export interface GuardPolicy {
  loopbackBind: boolean;
  allowHosts: readonly string[]; // lower-case host names
  listenHost: string;
  token: string | undefined; // undefined: no token rule
  // A cookie accepted in place of the bearer header (a browser page cannot send one): its name and
  // the value that stands for the token.
  cookie?: { name: string; value: string };
  // The 401 body: what this listener wants and where the token comes from.
  unauthorized: string;
}

export type Verdict = { ok: true } | { ok: false; status: number; body: string; headers?: Record<string, string> };

export interface GuardedHeaders {
  host?: string;
  origin?: string;
  authorization?: string;
  cookie?: string;
}

export const MCP_UNAUTHORIZED =
  'Unauthorized: this zodexd requires "Authorization: Bearer <token>" (the token given to it by --auth-token-file or ZODEX_AUTH_TOKEN).\n';

const OK: Verdict = { ok: true };

// The policy of a listener at `listen`: the Host rule applies on a loopback bind only.
export function guardPolicy(
  listen: ListenAddress,
  allowHosts: readonly string[],
  token: string | undefined,
  extra: Partial<Pick<GuardPolicy, 'cookie' | 'unauthorized'>> = {},
): GuardPolicy {
  return { loopbackBind: isLoopbackHost(listen.host), allowHosts, listenHost: listen.host, token, unauthorized: MCP_UNAUTHORIZED, ...extra };
}

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
  const shown = hostHeader === undefined ? '(none)' : quote(hostHeader);
  const name = host ?? 'NAME';
  return {
    ok: false,
    status: 403,
    body: `Forbidden: invalid Host header ${shown}. zodexd listens on loopback and only answers requests addressed to loopback names; start it with --allow-host ${clipText(name)} to admit this name.\n`,
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
    body: `Forbidden: invalid Origin header ${quote(origin)}. Requests from web pages of other origins are refused; a trusted origin's host can be admitted with --allow-host NAME.\n`,
  };
}

// The Host rule, then the Origin rule: the first refusal, or ok.
export function checkHostAndOrigin(headers: GuardedHeaders, policy: GuardPolicy): Verdict {
  const host = checkHost(headers.host, policy);
  return host.ok ? checkOrigin(headers.origin, policy) : host;
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

// No token configured: open. Otherwise "Authorization: Bearer <token>", or the policy's cookie.
export function checkToken(headers: GuardedHeaders, policy: GuardPolicy): Verdict {
  if (policy.token === undefined) return OK;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (match && sameSecret(match[1]!, policy.token)) return OK;
  if (policy.cookie) {
    const cookie = readCookie(headers.cookie, policy.cookie.name);
    if (cookie !== undefined && sameSecret(cookie, policy.cookie.value)) return OK;
  }
  return { ok: false, status: 401, body: policy.unauthorized, headers: { 'WWW-Authenticate': 'Bearer realm="zodex"' } };
}
