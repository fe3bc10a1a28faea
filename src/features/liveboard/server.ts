// The Liveboard's HTTP server, on its own listener (never the MCP one). Routes:
//   GET  /                          the page (self-contained; ?token=T sets the auth cookie, then 303 to /)
//   GET  /events                    SSE: `snapshot`, then `update` (changed sections) and `tail` (output)
//   POST /api/alias                 {agentId, alias}  -> the store, set by 'operator' (last write wins)
//   POST /api/sessions/:id/input    {chars}           -> the owning zodexd's control socket
//   POST /api/sessions/:id/kill     {}                -> the owning zodexd's control socket
//   GET  /grants, POST /api/oauth/grants/:id/revoke   OAuth clients (grants.ts)
// Flow per request: Host rule -> Origin rule (net/guard.ts) -> token (bearer or cookie) ->
// route; POSTs also pass checkPost (own Origin, JSON, CSRF header). No CORS, ever.

import http from 'node:http';
import { liveboardBindProblem, type ListenAddress } from '../../net/address.js';
import { readJsonBody } from '../../net/body.js';
import { checkHostAndOrigin, checkToken, type Verdict } from '../../net/guard.js';
import { listenOn } from '../../net/listen.js';
import { isAgentId, StoreError } from '../store/index.js';
import { Feed, type BoardStore, type BoardUpdate } from './feed.js';
import { contentSecurityPolicy, newCsrfToken, newNonce, SECURITY_HEADERS } from '../shared/browser.js';
import { authCookieHeader, boardPolicy, checkPost } from './guard.js';
import { TailHub, type StreamOpener, type TailMessage } from './hub.js';
import { GRANTS_PATH, readGrants, renderGrantsPage, REVOKE_PATH, revokeGrant } from './grants.js';
import { renderPage } from './page.js';
import { controlSocketPath } from './paths.js';
import { controlCall, controlStream, MAX_INPUT_CHARS, type ControlReply } from './protocol.js';

const MAX_BODY_BYTES = 64 * 1024;
const KEEPALIVE_MS = 15_000; // an SSE comment, so proxies and browsers keep the stream open
const SSE_MAX_BUFFERED_BYTES = 8 * 1024 * 1024; // a page this far behind is dropped; it reconnects

export interface LiveboardOptions {
  store: BoardStore;
  stateDir: string;
  listen: ListenAddress;
  allowHosts: readonly string[];
  token: string | undefined;
  log: (message: string) => void;
  // For tests.
  pollMs?: number;
  openStream?: StreamOpener;
}

export interface Liveboard {
  url: string; // http://HOST:PORT/ with the real port
  close(): Promise<void>;
}

function send(res: http.ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

function refuse(res: http.ServerResponse, verdict: Exclude<Verdict, { ok: true }>, asJson: boolean): void {
  if (asJson)
    return void send(res, verdict.status, 'application/json; charset=utf-8', JSON.stringify({ ok: false, error: verdict.body.trim() }), verdict.headers);
  send(res, verdict.status, 'text/plain; charset=utf-8', verdict.body, verdict.headers);
}

const STATUS_OF_CONTROL_ERROR: Record<string, number> = { UNKNOWN_SESSION: 404, SESSION_EXITED: 409, BAD_REQUEST: 400, UNREACHABLE: 502 };

export async function startLiveboard(options: LiveboardOptions): Promise<Liveboard> {
  const { store, stateDir, listen, log } = options;
  const problem = liveboardBindProblem(listen, options.token, '--listen');
  if (problem) throw new Error(problem);
  const policy = boardPolicy(listen, options.allowHosts, options.token);
  const csrfToken = newCsrfToken();
  const feed = new Feed(store, { pollMs: options.pollMs, log: (message) => log(`liveboard: ${message}`) });
  const hub = new TailHub(stateDir, options.openStream ?? controlStream);
  const streams = new Set<http.ServerResponse>();
  let hubFollowsFeed: (() => void) | undefined;

  // The hub follows the feed's sessions while any page is open.
  const followSessions = () => {
    if (hubFollowsFeed) return;
    const { snapshot, unsubscribe } = feed.subscribe((update) => update.sessions && hub.sync(update.sessions));
    hub.sync(snapshot.sessions);
    hubFollowsFeed = unsubscribe;
  };

  const events = (res: http.ServerResponse) => {
    res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    const write = (event: string, data: unknown) => {
      if (res.writableLength > SSE_MAX_BUFFERED_BYTES) return void res.destroy();
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    followSessions();
    res.write('retry: 1000\n\n');
    const { snapshot, unsubscribe } = feed.subscribe((update: BoardUpdate) => write('update', update));
    write('snapshot', snapshot);
    for (const message of hub.current()) write('tail', message);
    const stopTails = hub.subscribe((message: TailMessage) => write('tail', message));
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    streams.add(res);
    res.on('close', () => {
      clearInterval(keepalive);
      stopTails();
      unsubscribe();
      streams.delete(res);
      if (streams.size === 0 && hubFollowsFeed) {
        hubFollowsFeed();
        hubFollowsFeed = undefined;
        hub.sync([]);
      }
    });
  };

  const setAlias = (res: http.ServerResponse, body: unknown) => {
    const { agentId, alias } = (body ?? {}) as { agentId?: unknown; alias?: unknown };
    if (typeof agentId !== 'string' || !isAgentId(agentId) || typeof alias !== 'string') {
      return sendJson(res, 400, { ok: false, error: 'send {"agentId": "<four-character Agent ID>", "alias": "<text, empty clears>"}' });
    }
    try {
      store.setAlias(agentId, alias, 'operator');
    } catch (error) {
      if (error instanceof StoreError && (error.code === 'ALIAS_TOO_LONG' || error.code === 'UNKNOWN_AGENT')) {
        return sendJson(res, error.code === 'UNKNOWN_AGENT' ? 404 : 400, { ok: false, error: error.message });
      }
      throw error;
    }
    feed.pollNow();
    sendJson(res, 200, { ok: true });
  };

  const sessionAction = async (res: http.ServerResponse, sessionId: string, action: 'input' | 'kill', body: unknown) => {
    const chars = (body ?? {}) as { chars?: unknown };
    if (action === 'input' && (typeof chars.chars !== 'string' || chars.chars === '' || chars.chars.length > MAX_INPUT_CHARS)) {
      return sendJson(res, 400, { ok: false, error: `send {"chars": "<1 to ${MAX_INPUT_CHARS} characters>"}` });
    }
    const row = store.sessions({ runningOnly: true }).find((session) => session.sessionId === sessionId);
    if (!row) return sendJson(res, 404, { ok: false, error: `no running session ${sessionId}: it ended, or its zodexd did` });
    let reply: ControlReply;
    try {
      const socketPath = controlSocketPath(stateDir, row.serverId);
      reply = await controlCall(
        socketPath,
        action === 'input' ? { version: 1, op: 'input', sessionId, chars: chars.chars as string } : { version: 1, op: 'kill', sessionId },
      );
    } catch (error) {
      reply = { ok: false, error: { code: 'UNREACHABLE', message: (error as Error).message } };
    }
    feed.pollNow();
    if (reply.ok) return sendJson(res, 200, { ok: true });
    sendJson(res, STATUS_OF_CONTROL_ERROR[reply.error.code] ?? 500, { ok: false, error: reply.error.message, code: reply.error.code });
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://liveboard.invalid');
    const isApi = url.pathname.startsWith('/api/');
    const place = checkHostAndOrigin(req.headers, policy);
    if (!place.ok) return refuse(res, place, isApi);
    // The token shown once in the address bar: checked like a bearer token, kept as a cookie.
    const offered = url.searchParams.get('token');
    if (req.method === 'GET' && url.pathname === '/' && offered !== null && policy.token !== undefined) {
      const verdict = checkToken({ authorization: `Bearer ${offered}` }, policy);
      if (!verdict.ok) return refuse(res, verdict, false);
      return send(res, 303, 'text/plain; charset=utf-8', 'See Other: /\n', { Location: '/', 'Set-Cookie': authCookieHeader(policy.token) });
    }
    const auth = checkToken(req.headers, policy);
    if (!auth.ok) return refuse(res, auth, isApi);

    if (req.method === 'GET' || req.method === 'HEAD') {
      if (url.pathname === '/') {
        const nonce = newNonce();
        return send(res, 200, 'text/html; charset=utf-8', renderPage({ nonce, csrfToken }), { 'Content-Security-Policy': contentSecurityPolicy(nonce) });
      }
      if (url.pathname === '/events' && req.method === 'GET') return events(res);
      if (url.pathname === GRANTS_PATH) {
        const nonce = newNonce();
        return send(res, 200, 'text/html; charset=utf-8', renderGrantsPage(readGrants(stateDir), nonce, csrfToken), {
          'Content-Security-Policy': contentSecurityPolicy(nonce),
        });
      }
    }
    const revoke = REVOKE_PATH.exec(url.pathname);
    const action = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/(input|kill)$/.exec(url.pathname);
    if (isApi && (url.pathname === '/api/alias' || action || revoke)) {
      if (req.method !== 'POST') return send(res, 405, 'application/json; charset=utf-8', JSON.stringify({ ok: false, error: 'use POST' }), { Allow: 'POST' });
      const post = checkPost(req.headers, csrfToken);
      if (!post.ok) return refuse(res, post, true);
      // An action's body is small: anything over MAX_BODY_BYTES is drained, not kept, and refused.
      const body = await readJsonBody(req, MAX_BODY_BYTES);
      if (!body.ok) return sendJson(res, body.status, { ok: false, error: body.message });
      if (revoke) return sendJson(res, 200, { ok: true, revoked: revokeGrant(stateDir, revoke[1]!, Date.now()) });
      if (action) return sessionAction(res, action[1]!, action[2] as 'input' | 'kill', body.value ?? {});
      return setAlias(res, body.value ?? {});
    }
    send(res, 404, 'text/plain; charset=utf-8', 'Not Found: the Liveboard serves /, /events, /grants and /api/….\n');
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`liveboard: request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: 'internal error' });
      else res.destroy();
    });
  });
  server.requestTimeout = 0; // /events streams stay open
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  const bound = await listenOn(server, listen, 'the Liveboard');
  const url = `http://${bound.host}:${bound.port}/`;
  if (!policy.loopbackBind)
    log(`warning: the Liveboard listens on non-loopback ${bound.host}: anyone with the token who can reach it can type into and kill sessions`);
  log(`liveboard on ${url}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= (async () => {
        hubFollowsFeed?.();
        hub.close();
        feed.close();
        for (const res of streams) res.end();
        server.close();
        server.closeAllConnections();
      })();
      return closing;
    },
  };
}
