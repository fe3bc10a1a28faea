// Address rules shared by every listener (the MCP one, the Liveboard): which hosts are loopback,
// HOST:PORT parsing with wildcard binds refused, the MCP listener's unix:/PATH form, --allow-host
// names, and which binds need a token.
// Pure: a bad value throws AddressError naming the flag and the fix; callers turn it into theirs.

import net from 'node:net';
import path from 'node:path';
import { socketPathProblem } from './unix-socket.js';

export interface ListenAddress {
  host: string; // as given, without IPv6 brackets ('localhost' for a Unix socket)
  port: number;
  socketPath?: string; // --listen unix:/PATH: HTTP on this Unix socket, with the loopback Host rule
}

// A flag value that is not an address zodex can honour; the message names the flag and the fix.
export class AddressError extends Error {
  override name = 'AddressError';
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '0:0:0:0:0:0:0:0', '*']);

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(bare);
  return false;
}

// How a value is written where it came from: `--listen 0.0.0.0:7391` for a flag,
// `ZODEX_LISTEN=0.0.0.0:7391` for an environment variable (messages name what the user wrote).
export function written(flag: string, value: string): string {
  return flag.startsWith('-') ? `${flag} ${value}` : `${flag}=${value}`;
}

// flag: where the value came from, a flag (`--listen`) or an environment variable (`ZODEX_LISTEN`).
export function parseListen(value: string, flag = '--listen'): ListenAddress {
  const match = /^(?:\[([^\]]*)\]|([^:[\]]*)):([0-9]+)$/.exec(value);
  if (!match) {
    throw new AddressError(`${written(flag, JSON.stringify(value))} is not HOST:PORT; write e.g. ${written(flag, '127.0.0.1:7391')} (IPv6: [::1]:7391)`);
  }
  const host = (match[1] ?? match[2] ?? '').trim();
  const port = Number(match[3]);
  if (WILDCARD_HOSTS.has(host.toLowerCase())) {
    throw new AddressError(
      `${written(flag, value)} is a wildcard bind, which zodexd refuses; name the interface clients reach you on, e.g. ${written(flag, `127.0.0.1:${port}`)}`,
    );
  }
  if (!Number.isInteger(port) || port > 65535) {
    throw new AddressError(`${written(flag, value)}: the port must be 0-65535 (0 picks a free one)`);
  }
  return { host, port };
}

// The MCP listener's --listen (or ZODEX_LISTEN): HOST:PORT, or unix:/PATH for HTTP over a Unix socket.
export function parseMcpListen(value: string, flag = '--listen'): ListenAddress {
  if (!value.startsWith('unix:')) return parseListen(value, flag);
  const socketPath = value.slice('unix:'.length);
  const problem = socketPathProblem(socketPath);
  if (problem) throw new AddressError(written(flag, `unix:${problem}`));
  return { host: 'localhost', port: 0, socketPath: path.normalize(socketPath) };
}

// An --allow-host value (or one of ZODEX_ALLOW_HOST's): a lower-case host name without port or IPv6 brackets.
export function parseAllowHost(value: string, flag = '--allow-host'): string {
  const host = value.trim().toLowerCase();
  if (host === '' || /\s|\//.test(host)) {
    throw new AddressError(`${written(flag, JSON.stringify(value))} is not a hostname; write e.g. ${written(flag, 'host.docker.internal')}`);
  }
  const hasPort = host.startsWith('[') ? /\]:\d*$/.test(host) : /:/.test(host) && !net.isIPv6(host);
  if (hasPort) {
    const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.slice(0, host.lastIndexOf(':'));
    throw new AddressError(`${flag} takes a hostname without a port; write ${written(flag, bare)} (any port is accepted)`);
  }
  return host.replace(/^\[(.*)\]$/, '$1');
}

// The MCP listener on a non-loopback address needs a token (static or OAuth's), unless
// --insecure-no-auth says otherwise. flag: where the address came from (--listen or ZODEX_LISTEN).
export function mcpBindProblem(
  listen: ListenAddress,
  token: string | undefined,
  insecureNoAuth: boolean,
  oauth = false,
  flag = '--listen',
): string | undefined {
  if (isLoopbackHost(listen.host) || token !== undefined || insecureNoAuth || oauth) return undefined;
  return `${written(flag, listen.host)} is not a loopback address, so a token is required: pass --auth-token-file PATH or set ZODEX_AUTH_TOKEN, or use --oauth (or, knowingly, --insecure-no-auth)`;
}

// A Liveboard on a non-loopback address needs a token (zodexd --liveboard, zodex liveboard --listen).
export function liveboardBindProblem(listen: ListenAddress, token: string | undefined, flag: string): string | undefined {
  if (isLoopbackHost(listen.host) || token !== undefined) return undefined;
  return `${flag} ${listen.host} is not a loopback address, so the Liveboard needs a token: pass --auth-token-file PATH or set ZODEX_AUTH_TOKEN`;
}
