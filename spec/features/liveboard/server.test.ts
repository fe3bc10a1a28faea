// The Liveboard over HTTP, with a real store, a real engine and its control socket in this
// process: the Host/Origin/token guardrails, the cross-site rules of every action, the change
// feed (a change from another connection reaches the SSE stream within a second), and input and
// kill from the board reaching a real session.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecEngine } from '../../../src/exec/engine.js';
import { startControlServer, type ControlServer } from '../../../src/features/liveboard/control.js';
import { AUTH_COOKIE, authCookieValue } from '../../../src/features/liveboard/guard.js';
import { startLiveboard, type Liveboard } from '../../../src/features/liveboard/server.js';
import { openStore, openStoreReader, type SqliteStore, type Store } from '../../../src/features/store/index.js';
import { realEngine, request, scratch, SseReader, until, type RawResponse } from './support.js';

let dir: string;
let stateDir: string;
let writer: Store; // zodexd's store
let reader: SqliteStore; // the board's own connection, as `zodex liveboard` has
let serverId: string;
let agentId: string;
let engine: ExecEngine;
let control: ControlServer;
let board: Liveboard;
let origin: string; // http://127.0.0.1:PORT
let csrf: string;
const logged: string[] = [];

beforeAll(async () => {
  dir = scratch('server');
  stateDir = path.join(dir, 'state');
  writer = openStore({ stateDir, warn: (message) => logged.push(message) });
  serverId = writer.registerServer({ transport: 'http', pid: process.pid, mode: 'local' });
  agentId = writer.registerAgent(serverId);
  const wired = realEngine(writer, serverId, path.join(dir, 'spill'));
  engine = wired.engine;
  control = startControlServer({ sessions: () => engine.list(), store: writer, serverId, stateDir, tails: wired.tails, log: (m) => logged.push(m) });
  await control.ready;
  reader = openStoreReader(stateDir);
  board = await startLiveboard({
    store: reader,
    stateDir,
    listen: { host: '127.0.0.1', port: 0 },
    allowHosts: [],
    token: undefined,
    log: (m) => logged.push(m),
  });
  origin = board.url.replace(/\/$/, '');
  const page = await request(board.url);
  csrf = /<meta name="zodex-csrf" content="([^"]+)">/.exec(page.body)![1]!;
});

afterAll(async () => {
  await board.close();
  await engine.shutdown();
  await control.close();
  reader.close();
  writer.close();
});

function post(pathname: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return request(`${origin}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, 'x-zodex-liveboard': csrf, 'sec-fetch-site': 'same-origin', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('guardrails', () => {
  it('logs its URL with the real port and serves the page with a strict CSP', async () => {
    expect(logged).toContain(`liveboard on ${board.url}`);
    const page = await request(board.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'nonce-[^']+'/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin, as the MCP listener does', async () => {
    const host = await request(board.url, { headers: { host: 'evil.example:80' } });
    expect(host.status).toBe(403);
    expect(host.body).toMatch(/invalid Host header.*--allow-host evil\.example/);
    const foreign = await request(`${origin}/events`, { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatch(/invalid Origin header/);
  });

  it('accepts an action with the right Origin, JSON and CSRF token', async () => {
    const ok = await post('/api/alias', { agentId, alias: 'Guard check' });
    expect(ok.status, ok.body).toBe(200);
    expect(reader.agent(agentId)).toMatchObject({ alias: 'Guard check', aliasSetBy: 'operator' });
  });

  it('refuses cross-site actions: foreign or missing Origin, another port, cross-site fetch, wrong or missing token, form bodies', async () => {
    const cases: [string, Record<string, string>, number, RegExp][] = [
      ['foreign Origin', { origin: 'http://evil.example' }, 403, /invalid Origin/],
      ['another loopback origin', { origin: 'http://127.0.0.1:1' }, 403, /own page/],
      ['no Origin', { origin: '' }, 403, /own page/],
      ['cross-site fetch', { 'sec-fetch-site': 'cross-site' }, 403, /cross-site request/],
      ['no CSRF header', { 'x-zodex-liveboard': '' }, 403, /X-Zodex-Liveboard/],
      ['wrong CSRF token', { 'x-zodex-liveboard': 'not-the-token' }, 403, /X-Zodex-Liveboard/],
      ['form-encoded body', { 'content-type': 'application/x-www-form-urlencoded' }, 415, /application\/json/],
      ['text/plain body', { 'content-type': 'text/plain' }, 415, /application\/json/],
    ];
    for (const [label, headers, status, message] of cases) {
      const cleaned = Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== ''));
      const dropped = Object.keys(headers).filter((key) => headers[key] === '');
      const response = await request(`${origin}/api/alias`, {
        method: 'POST',
        headers: Object.fromEntries(
          Object.entries({ 'content-type': 'application/json', origin, 'x-zodex-liveboard': csrf, ...cleaned }).filter(([key]) => !dropped.includes(key)),
        ),
        body: label.includes('form') ? `agentId=${agentId}&alias=pwned` : JSON.stringify({ agentId, alias: 'pwned' }),
      });
      expect(response.status, label).toBe(status);
      expect(JSON.parse(response.body).error, label).toMatch(message);
    }
    expect(reader.agent(agentId)?.alias).not.toBe('pwned');
  });

  it('never answers a CORS preflight, and takes actions only as POST', async () => {
    const preflight = await request(`${origin}/api/sessions/s000000000000/kill`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-zodex-liveboard' },
    });
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect((await request(`${origin}/api/alias`)).status).toBe(405);
    expect((await request(`${origin}/mcp`)).status).toBe(404);
  });

  it('validates alias requests', async () => {
    expect((await post('/api/alias', { agentId, alias: 'x'.repeat(81) })).status).toBe(400);
    expect((await post('/api/alias', { agentId: 'zzzz', alias: 'ghost' })).status).toBe(404);
    expect((await post('/api/alias', { agentId: '../../etc', alias: 'x' })).status).toBe(400);
    expect((await post('/api/alias', '{not json')).status).toBe(400);
  });
});

describe('token', () => {
  it('is required on a non-loopback bind', async () => {
    await expect(
      startLiveboard({ store: reader, stateDir, listen: { host: '192.0.2.1', port: 0 }, allowHosts: [], token: undefined, log: () => {} }),
    ).rejects.toThrow(/not a loopback address, so the Liveboard needs a token/);
  });

  it('is taken once from ?token= into an HttpOnly SameSite=Strict cookie, or as a bearer header', async () => {
    const token = 'liveboard-token-0123456789abcdef';
    const guarded = await startLiveboard({ store: reader, stateDir, listen: { host: '127.0.0.1', port: 0 }, allowHosts: [], token, log: () => {} });
    try {
      const bare = await request(guarded.url);
      expect(bare.status).toBe(401);
      expect(bare.headers['www-authenticate']).toMatch(/Bearer/);
      expect((await request(`${guarded.url}?token=wrong-token-0123456789`)).status).toBe(401);
      const given = await request(`${guarded.url}?token=${token}`);
      expect(given.status).toBe(303);
      expect(given.headers.location).toBe('/');
      const cookie = given.headers['set-cookie']![0]!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).not.toContain(token);
      expect(cookie.startsWith(`${AUTH_COOKIE}=${authCookieValue(token)};`)).toBe(true);
      const withCookie = await request(guarded.url, { headers: { cookie: cookie.split(';')[0]! } });
      expect(withCookie.status).toBe(200);
      expect((await request(guarded.url, { headers: { cookie: `${AUTH_COOKIE}=forged` } })).status).toBe(401);
      const bearer = await request(`${guarded.url}api/alias`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          origin: guarded.url.replace(/\/$/, ''),
          'x-zodex-liveboard': /content="([^"]+)">\n<title>/.exec(withCookie.body)![1]!,
        },
        body: JSON.stringify({ agentId, alias: 'by bearer' }),
      });
      expect(bearer.status, bearer.body).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('the change feed', () => {
  it('opens with a snapshot, and a change written by another connection arrives within a second', async () => {
    const sse = await SseReader.open(`${origin}/events`);
    try {
      const snapshot = (await sse.waitFor((e) => e.event === 'snapshot')).data as { servers: { serverId: string }[]; agents: { agentId: string }[] };
      expect(snapshot.servers.map((s) => s.serverId)).toContain(serverId);
      expect(snapshot.agents.map((a) => a.agentId)).toContain(agentId);

      const written = Date.now();
      writer.setAlias(agentId, 'Rindle implementation', 'agent');
      const renamed = await sse.waitFor(
        (e) =>
          e.event === 'update' &&
          ((e.data as { agents?: { agentId: string; alias: string }[] }).agents ?? []).some(
            (a) => a.agentId === agentId && a.alias === 'Rindle implementation',
          ),
        1_000,
      );
      expect(renamed.at - written).toBeLessThan(1_000);

      const id = writer.startInvocation({ agentId, tool: 'exec_command', workdir: dir, summary: 'make test' });
      writer.finishInvocation(id, { resultSummary: 'exited 0 after 0.1s', isError: false, exitCode: 0, terminationReason: 'exit' });
      const timeline = await sse.waitFor(
        (e) =>
          e.event === 'update' &&
          ((e.data as { timelines?: Record<string, { summary: string; exitCode: number }[]> }).timelines?.[agentId] ?? []).some(
            (row) => row.summary === 'make test' && row.exitCode === 0,
          ),
        1_000,
      );
      expect(timeline.at - written).toBeLessThan(1_500);
    } finally {
      sse.close();
    }
  });
});

describe('actions on a real session', () => {
  it('types into a session from the board and shows the answer in its tail', async () => {
    const sse = await SseReader.open(`${origin}/events`);
    try {
      const session = await engine.start({ cmd: 'read -r line; echo "got $line"', cwd: dir, timeoutMs: 30_000, owner: 'spec', agentId });
      await sse.waitFor((e) => e.event === 'tail' && (e.data as { sessionId: string }).sessionId === session.id, 2_000);
      const typed = await post(`/api/sessions/${session.id}/input`, { chars: 'hello board\n' });
      expect(typed.status, typed.body).toBe(200);
      await sse.waitFor((e) => e.event === 'tail' && (e.data as { sessionId: string; text: string }).text.includes('got hello board'), 2_000);
      await sse.waitFor((e) => e.event === 'tail' && (e.data as { end?: { reason: string } }).end?.reason === 'exit', 2_000);
      await until(() => reader.history({ agentId }).find((row) => row.tool === 'operator.input' && row.sessionId === session.id), 2_000, 'operator.input row');
    } finally {
      sse.close();
    }
  });

  it('kills a session from the board', async () => {
    const sse = await SseReader.open(`${origin}/events`);
    try {
      const session = await engine.start({ cmd: 'echo ready; sleep 30', cwd: dir, timeoutMs: 30_000, owner: 'spec', agentId });
      await sse.waitFor(
        (e) =>
          e.event === 'tail' && (e.data as { sessionId: string; text: string }).sessionId === session.id && (e.data as { text: string }).text.includes('ready'),
        3_000,
      );
      const killed = await post(`/api/sessions/${session.id}/kill`, {});
      expect(killed.status, killed.body).toBe(200);
      await sse.waitFor(
        (e) =>
          e.event === 'tail' &&
          (e.data as { sessionId: string; end?: { reason: string } }).sessionId === session.id &&
          (e.data as { end?: { reason: string } }).end?.reason === 'killed',
        3_000,
      );
      await sse.waitFor(
        (e) =>
          e.event === 'update' &&
          ((e.data as { sessions?: { sessionId: string; state: string; terminationReason: string }[] }).sessions ?? []).some(
            (s) => s.sessionId === session.id && s.terminationReason === 'killed',
          ),
        2_000,
      );
      expect(
        reader
          .history({ agentId })
          .filter((row) => row.sessionId === session.id && row.actor === 'operator')
          .map((row) => row.tool),
      ).toEqual(['operator.kill']);
      const again = await post(`/api/sessions/${session.id}/kill`, {});
      expect(again.status).toBe(404);
    } finally {
      sse.close();
    }
  });

  it('refuses input that is empty or too long', async () => {
    expect((await post('/api/sessions/s000000000000/input', { chars: '' })).status).toBe(400);
    expect((await post('/api/sessions/s000000000000/input', { chars: 'x'.repeat(5_000) })).status).toBe(400);
    expect((await post('/api/sessions/s000000000000/input', { chars: 'x' })).status).toBe(404);
  });
});
