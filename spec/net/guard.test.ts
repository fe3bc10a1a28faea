// The Host, Origin and token rules as pure decisions: every case the conformance suite checks over
// the wire (http.host-loopback, http.host-foreign, http.allow-host, http.non-loopback-bind,
// http.origin, http.token, liveboard.guardrails), decided here without a socket.

import { describe, expect, it } from 'vitest';
import { authCookieValue, AUTH_COOKIE, boardPolicy, checkPost, CSRF_HEADER } from '../../src/features/liveboard/guard.js';
import {
  checkHost,
  checkHostAndOrigin,
  checkOrigin,
  checkToken,
  guardPolicy,
  hostnameOf,
  MCP_UNAUTHORIZED,
  readCookie,
  type Verdict,
} from '../../src/net/guard.js';

const PORT = 7391;
const TOKEN = 'conformance-token-0123456789abcdef';
const loopback = guardPolicy({ host: '127.0.0.1', port: PORT }, [], undefined);
const allowing = guardPolicy({ host: '127.0.0.1', port: PORT }, ['host.docker.internal', 'sandbox.local'], undefined);
const wide = guardPolicy({ host: '10.1.2.3', port: PORT }, [], TOKEN);

function refused(verdict: Verdict): Extract<Verdict, { ok: false }> {
  if (verdict.ok) throw new Error('expected a refusal');
  return verdict;
}

describe('the Host rule on a loopback bind', () => {
  it('admits loopback names and addresses, with or without a port, in any case', () => {
    for (const host of ['127.0.0.1', `127.0.0.1:${PORT}`, '127.1.2.3', 'localhost', `LOCALHOST:${PORT}`, '[::1]', `[::1]:${PORT}`, 'app.localhost']) {
      expect(checkHost(host, loopback).ok, host).toBe(true);
    }
  });

  it('refuses any other name with 403, naming the --allow-host that would admit it', () => {
    for (const host of ['evil.example', 'evil.example:80', '10.0.0.1', 'host.docker.internal', '127.0.0.1.nip.io', '']) {
      const verdict = refused(checkHost(host, loopback));
      expect(verdict.status, host).toBe(403);
      expect(verdict.body).toMatch(/^Forbidden: invalid Host header/);
      expect(verdict.body).toContain('--allow-host');
    }
    expect(refused(checkHost('evil.example:8080', loopback)).body).toContain('--allow-host evil.example to admit');
    expect(refused(checkHost(undefined, loopback)).body).toContain('invalid Host header (none)');
  });

  it('admits the --allow-host names at any port, and only those exact names', () => {
    for (const host of ['host.docker.internal', 'host.docker.internal:7391', 'HOST.DOCKER.INTERNAL:1', 'sandbox.local', 'sandbox.local:99', '127.0.0.1']) {
      expect(checkHost(host, allowing).ok, host).toBe(true);
    }
    for (const host of ['docker.internal', 'host.docker.internal.evil', 'evil.example']) expect(checkHost(host, allowing).ok, host).toBe(false);
  });

  it('quotes a long Host header bounded', () => {
    const body = refused(checkHost(`${'a'.repeat(5_000)}.example`, loopback)).body;
    expect(body.length).toBeLessThan(1_000);
    expect(body).toContain('more characters');
  });
});

describe('a non-loopback bind', () => {
  it('applies no Host rule: any Host passes, the token does the guarding', () => {
    expect(wide.loopbackBind).toBe(false);
    expect(checkHost('anything.example', wide).ok).toBe(true);
    expect(checkHost(undefined, wide).ok).toBe(true);
    expect(refused(checkToken({}, wide)).status).toBe(401);
    expect(checkToken({ authorization: `Bearer ${TOKEN}` }, wide).ok).toBe(true);
  });

  it('with --insecure-no-auth (no token) serves anyone', () => {
    const open = guardPolicy({ host: '10.1.2.3', port: PORT }, [], undefined);
    expect(checkHostAndOrigin({ host: 'anything.example' }, open).ok).toBe(true);
    expect(checkToken({}, open).ok).toBe(true);
  });

  it('admits an Origin on the bound address itself', () => {
    expect(checkOrigin('http://10.1.2.3:7391', wide).ok).toBe(true);
    expect(checkOrigin('http://10.9.9.9:7391', wide).ok).toBe(false);
  });
});

describe('the Origin rule', () => {
  const trusting = guardPolicy({ host: '127.0.0.1', port: PORT }, ['trusted.example'], undefined);

  it('refuses foreign origins with 403', () => {
    for (const origin of ['https://evil.example', 'http://evil.example:7391', 'null', 'http://127.0.0.1.evil.example', 'not a url']) {
      const verdict = refused(checkOrigin(origin, trusting));
      expect(verdict.status, origin).toBe(403);
      expect(verdict.body).toMatch(/^Forbidden: invalid Origin header/);
    }
  });

  it('admits loopback and --allow-host origins, and requests without an Origin', () => {
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost', 'http://[::1]:8080', 'https://trusted.example'])
      expect(checkOrigin(origin, trusting).ok, origin).toBe(true);
    expect(checkOrigin(undefined, trusting).ok).toBe(true);
  });

  it('is checked after the Host rule, whose refusal comes first', () => {
    expect(refused(checkHostAndOrigin({ host: 'evil.example', origin: 'https://evil.example' }, trusting)).body).toMatch(/invalid Host header/);
    expect(refused(checkHostAndOrigin({ host: '127.0.0.1', origin: 'https://evil.example' }, trusting)).body).toMatch(/invalid Origin header/);
    expect(checkHostAndOrigin({ host: '127.0.0.1', origin: 'http://localhost:1' }, trusting).ok).toBe(true);
  });
});

describe('the bearer token', () => {
  const guarded = guardPolicy({ host: '127.0.0.1', port: PORT }, [], TOKEN);

  it('refuses a missing, wrong, non-bearer or empty credential with 401 and WWW-Authenticate, never echoing the token', () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, 'Bearer', `Bearer ${TOKEN.slice(1)}`]) {
      const verdict = refused(checkToken({ authorization }, guarded));
      expect(verdict.status, String(authorization)).toBe(401);
      expect(verdict.headers?.['WWW-Authenticate']).toMatch(/^Bearer/);
      expect(verdict.body).toBe(MCP_UNAUTHORIZED);
      expect(verdict.body).not.toContain(TOKEN);
    }
  });

  it('admits the token, the scheme in any case, trailing space allowed', () => {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN} `])
      expect(checkToken({ authorization }, guarded).ok, authorization).toBe(true);
  });

  it('ignores cookies unless the policy names one', () => {
    expect(checkToken({ cookie: `${AUTH_COOKIE}=${authCookieValue(TOKEN)}` }, guarded).ok).toBe(false);
  });

  it('is open when no token is configured', () => {
    expect(checkToken({}, loopback).ok).toBe(true);
  });
});

describe('the Liveboard policy', () => {
  const board = boardPolicy({ host: '127.0.0.1', port: 7392 }, [], TOKEN);

  it('refuses a foreign Host naming the flag, as the MCP listener does', () => {
    expect(refused(checkHostAndOrigin({ host: 'attacker.example' }, board)).body).toMatch(/invalid Host header.*--allow-host attacker\.example/);
  });

  it('takes the bearer header or its cookie, whose value is derived from the token and never the token', () => {
    expect(checkToken({ authorization: `Bearer ${TOKEN}` }, board).ok).toBe(true);
    expect(checkToken({ cookie: `other=1; ${AUTH_COOKIE}=${authCookieValue(TOKEN)}` }, board).ok).toBe(true);
    expect(authCookieValue(TOKEN)).not.toContain(TOKEN);
    for (const cookie of [`${AUTH_COOKIE}=forged`, `${AUTH_COOKIE}=${TOKEN}`, `x${AUTH_COOKIE}=${authCookieValue(TOKEN)}`]) {
      expect(checkToken({ cookie }, board).ok, cookie).toBe(false);
    }
  });

  it('answers 401 with its own text: open /?token= once', () => {
    const verdict = refused(checkToken({}, board));
    expect(verdict.status).toBe(401);
    expect(verdict.body).toMatch(/^Unauthorized: this Liveboard requires its token\. Open \/\?token=<token> once/);
    expect(refused(checkToken({ authorization: 'Bearer wrong-token-wrong-token' }, board)).body).toBe(verdict.body);
  });

  it('is open without a token, and names no cookie then', () => {
    const open = boardPolicy({ host: '127.0.0.1', port: 7392 }, [], undefined);
    expect(open.cookie).toBeUndefined();
    expect(checkToken({}, open).ok).toBe(true);
  });

  it('lets a POST act only from its own page: own Origin, same-origin, JSON, the CSRF header', () => {
    const csrf = 'csrf-token-value';
    const good = {
      host: '127.0.0.1:7392',
      origin: 'http://127.0.0.1:7392',
      'content-type': 'application/json; charset=utf-8',
      [CSRF_HEADER]: csrf,
      'sec-fetch-site': 'same-origin',
    };
    expect(checkPost(good, csrf).ok).toBe(true);
    expect(refused(checkPost({ ...good, origin: 'http://127.0.0.1:9999' }, csrf)).status).toBe(403);
    expect(refused(checkPost({ ...good, origin: undefined }, csrf)).body).toContain('(none)');
    expect(refused(checkPost({ ...good, 'sec-fetch-site': 'cross-site' }, csrf)).body).toContain('a cross-site request cannot act');
    expect(refused(checkPost({ ...good, 'content-type': 'text/plain' }, csrf)).status).toBe(415);
    expect(refused(checkPost({ ...good, [CSRF_HEADER]: 'wrong' }, csrf)).status).toBe(403);
    expect(refused(checkPost({ ...good, [CSRF_HEADER]: undefined }, csrf)).body).toMatch(/X-Zodex-Liveboard/);
  });
});

describe('header parsing', () => {
  it('reads the host name of a Host header, or nothing when malformed', () => {
    expect(hostnameOf('Example.COM:80')).toBe('example.com');
    expect(hostnameOf('[::1]:7391')).toBe('::1');
    expect(hostnameOf('[::1]')).toBe('::1');
    for (const header of ['', ' ', '[::1', '[::1]x', 'a:b', 'a:123456', 'a:1:2']) expect(hostnameOf(header), header).toBeUndefined();
  });

  it('reads one cookie out of a Cookie header', () => {
    expect(readCookie('a=1; b = 2 ;c=3', 'b')).toBe('2');
    expect(readCookie('a=1', 'b')).toBeUndefined();
    expect(readCookie(undefined, 'b')).toBeUndefined();
  });
});
