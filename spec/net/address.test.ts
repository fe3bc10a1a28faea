// Address rules and listening: loopback names, HOST:PORT with wildcards refused, --allow-host
// names, which binds need a token, and listenOn's bound address and failure line.

import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { AddressError, isLoopbackHost, liveboardBindProblem, mcpBindProblem, parseAllowHost, parseListen } from '../../src/net/address.js';
import { listenOn } from '../../src/net/listen.js';

const TOKEN = 'x'.repeat(32);

describe('isLoopbackHost', () => {
  it('knows loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.9.8.7', 'localhost', 'LOCALHOST', '[::1]', '::1', 'app.localhost', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1']) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ['10.0.0.1', 'example.com', '::2', 'host.docker.internal', '0.0.0.0', '128.0.0.1', 'localhost.example'])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('parseListen', () => {
  it('parses HOST:PORT, IPv6 in brackets, port 0', () => {
    expect(parseListen('127.0.0.1:7391')).toEqual({ host: '127.0.0.1', port: 7391 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListen('localhost:65535')).toEqual({ host: 'localhost', port: 65535 });
  });

  it('refuses wildcard binds, naming the flag and an address to use instead', () => {
    for (const value of ['0.0.0.0:7391', '[::]:7391', ':7391', '*:7391', '[0:0:0:0:0:0:0:0]:7391']) {
      expect(() => parseListen(value, '--liveboard'), value).toThrow(AddressError);
      expect(() => parseListen(value, '--liveboard'), value).toThrow(
        /^--liveboard .* is a wildcard bind, which zodexd refuses; .*--liveboard 127\.0\.0\.1:7391$/,
      );
    }
  });

  it('refuses what is not HOST:PORT, and ports past 65535', () => {
    for (const value of ['localhost', '127.0.0.1', '::1:80', '127.0.0.1:http', ''])
      expect(() => parseListen(value), value).toThrow(/is not HOST:PORT; write e\.g\. --listen 127\.0\.0\.1:7391/);
    expect(() => parseListen('127.0.0.1:65536')).toThrow(/the port must be 0-65535/);
  });
});

describe('parseAllowHost', () => {
  it('lower-cases names and drops IPv6 brackets', () => {
    expect(parseAllowHost(' Host.Docker.Internal ')).toBe('host.docker.internal');
    expect(parseAllowHost('[::1]')).toBe('::1');
    expect(parseAllowHost('fe80::1')).toBe('fe80::1');
  });

  it('refuses a port, naming the bare host to pass instead', () => {
    expect(() => parseAllowHost('sandbox.local:8080')).toThrow(
      '--allow-host takes a hostname without a port; write --allow-host sandbox.local (any port is accepted)',
    );
    expect(() => parseAllowHost('[::1]:80')).toThrow('write --allow-host [::1] (any port');
  });

  it('refuses what is not a hostname', () => {
    for (const value of ['', '  ', 'a b', 'http://x']) expect(() => parseAllowHost(value), value).toThrow(/is not a hostname/);
  });
});

describe('bind rules', () => {
  it('an MCP listener off loopback needs a token or --insecure-no-auth', () => {
    const wide = { host: '10.1.2.3', port: 7391 };
    expect(mcpBindProblem(wide, undefined, false)).toMatch(/^--listen 10\.1\.2\.3 is not a loopback address, so a token is required/);
    expect(mcpBindProblem(wide, TOKEN, false)).toBeUndefined();
    expect(mcpBindProblem(wide, undefined, true)).toBeUndefined();
    expect(mcpBindProblem({ host: '127.0.0.1', port: 0 }, undefined, false)).toBeUndefined();
  });

  it('a Liveboard off loopback needs a token, naming the flag', () => {
    expect(liveboardBindProblem({ host: '192.0.2.7', port: 7392 }, undefined, '--liveboard')).toMatch(
      /^--liveboard 192\.0\.2\.7 is not a loopback address, so the Liveboard needs a token/,
    );
    expect(liveboardBindProblem({ host: '192.0.2.7', port: 7392 }, TOKEN, '--liveboard')).toBeUndefined();
    expect(liveboardBindProblem({ host: 'localhost', port: 7392 }, undefined, '--listen')).toBeUndefined();
  });
});

describe('listenOn', () => {
  it('reports the address really bound, and a taken port as one line naming the address', async () => {
    const first = net.createServer();
    const bound = await listenOn(first, { host: '127.0.0.1', port: 0 });
    try {
      expect(bound.host).toBe('127.0.0.1');
      expect(bound.port).toBeGreaterThan(0);
      const second = net.createServer();
      await expect(listenOn(second, { host: '127.0.0.1', port: bound.port }, 'the Liveboard')).rejects.toThrow(
        `the Liveboard cannot listen on 127.0.0.1:${bound.port}: EADDRINUSE`,
      );
      await expect(listenOn(net.createServer(), { host: '127.0.0.1', port: bound.port })).rejects.toThrow(/^cannot listen on/);
      expect(second.listening).toBe(false);
    } finally {
      first.close();
    }
  });
});
