// MCP over streamable HTTP at http://HOST:PORT/mcp, on the SDK's server transport.
// Flow per request: Host rule -> Origin rule -> the authenticator's own paths (HttpAuthenticator:
// with --oauth, features/oauth) -> path (/mcp or 404) -> credentials (the static bearer token, or
// the authenticator's check, which names the principal) -> drain (503)
// -> body (our own size limit and deadline, 413/408) -> the conversation (Mcp-Session-Id), or a
// new one for an initialize request (capped: sessions.ts). A POST whose connection drops
// is cancelled like notifications/cancelled. On shutdown (app/ decides when): drain() answers
// newcomers 503 and waits for calls in flight; close() then ends every conversation and the listener.
// A POST without Mcp-Session-Id whose body carries 2026-07-28 _meta goes to the 2026-07-28 server
// instead (wire/rev2026-07-28/classify.ts decides, rev2026-07-28.ts answers), behind the same guardrails.

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ListenAddress } from '../../net/address.js';
import { readJsonBody } from '../../net/body.js';
import { checkHostAndOrigin, checkToken, type GuardPolicy, type Verdict } from '../../net/guard.js';
import { listenOn, type BoundAddress } from '../../net/listen.js';
import type { Rev2026Server } from '../../server/rev2026-07-28/dispatch.js';
import { REV2026_VERSION } from '../../wire/rev2026-07-28/envelope.js';
import { cancelOnDrop } from './cancel.js';
import { classifyPost, rev2026Headers } from '../../wire/rev2026-07-28/classify.js';
import { serveRev2026, writeRejection } from './rev2026-07-28.js';
import { HttpSessionTable, type HttpSession } from './sessions.js';
import type { ConversationFactory, Serving } from '../serving.js';

const MCP_PATH = '/mcp';
const IDLE_SWEEP_MS = 60_000;
const RETRY_AFTER_S = '5';

function refuse(res: http.ServerResponse, verdict: Exclude<Verdict, { ok: true }>): void {
  res.writeHead(verdict.status, { 'Content-Type': 'text/plain; charset=utf-8', ...verdict.headers });
  res.end(verdict.body);
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

// Who may call /mcp in place of the static token rule, and what other paths the listener answers
// (features/oauth implements it with --oauth). Closed with the listener.
export interface HttpAuthenticator {
  // The listener bound ('tcp:HOST:PORT' or 'unix:PATH').
  listening(address: string): void;
  // Answers a request for a path of its own, before the 404; true when it did.
  handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean>;
  // An /mcp request's credentials: the principal it acts as ('static' for the static token), or the refusal.
  authenticate(req: http.IncomingMessage): { ok: true; principal: string } | Exclude<Verdict, { ok: true }>;
  // Logged once the listener serves.
  notice: string;
  close(): void;
}

// The static token rule (--auth-token-file), where no authenticator replaces it.
function staticToken(req: http.IncomingMessage, policy: GuardPolicy): ReturnType<HttpAuthenticator['authenticate']> {
  const verdict = checkToken({ authorization: req.headers.authorization }, policy);
  return verdict.ok ? { ok: true, principal: 'static' } : verdict;
}

export interface HttpOptions {
  listen: ListenAddress;
  guard: GuardPolicy;
  maxBodyBytes: number; // --max-body-bytes
  bodyTimeoutMs: number; // --body-timeout-ms
  headersTimeoutMs: number; // --headers-timeout-ms
  idleMs: number; // --http-idle-ms: an unused session is closed after this long
  maxConversations: number; // --max-conversations
  // --oauth: the authorization server's paths and the bearer check (which also takes the static
  // token); absent: the guard policy's static token rule.
  authenticator?: HttpAuthenticator;
  open: ConversationFactory;
  rev2026?: Rev2026Server; // serves the 2026-07-28 requests; without it, 2025 only
  // Whether the conversation with this id still owns a running command (then it is never evicted).
  hasRunningCommand: (id: string) => boolean;
  log: (line: string) => void;
}

export interface HttpServing extends Serving {
  address: BoundAddress; // what was really bound (port 0 picks one)
  url: string; // http://HOST:PORT/mcp (http://localhost/mcp over a Unix socket)
  readonly sessions: number; // 2025-11-25 sessions open (and opening)
  // From now on newcomers get 503; resolves once no call is in flight, or after ms.
  drain(reason: string, ms: number): Promise<void>;
  // Closes every session `principal` opened (a revoked grant): their calls in flight are
  // cancelled and their commands killed. Returns how many sessions were open.
  endPrincipal(principal: string): number;
}

export async function serveHttp(options: HttpOptions): Promise<HttpServing> {
  const { log, guard: policy, authenticator } = options;
  const conversations = new HttpSessionTable(options.maxConversations, options.hasRunningCommand, log);
  let draining = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  // Registered at once (as opening), so that the cap counts conversations still initializing.
  const openConversation = (principal: string): { conversation: HttpSession; connected: Promise<void> } => {
    const id = randomUUID();
    const opened = options.open(id, principal);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        conversation.opening = false;
      },
    });
    let closed = false;
    const conversation: HttpSession = {
      id,
      transport,
      lastActivity: Date.now(),
      inFlight: 0,
      opening: true,
      principal,
      async close() {
        if (closed) return;
        closed = true;
        conversations.delete(id);
        await opened.close();
      },
    };
    transport.onclose = () => void conversation.close();
    conversations.add(conversation);
    return { conversation, connected: opened.connect(transport) };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const place = checkHostAndOrigin(req.headers, policy);
    if (!place.ok) return refuse(res, place);
    if (authenticator && (await authenticator.handle(req, res))) return;
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`Not Found: zodexd serves MCP at ${MCP_PATH} only.\n`);
      return;
    }
    const auth = authenticator ? authenticator.authenticate(req) : staticToken(req, policy);
    if (!auth.ok) return refuse(res, auth);
    // A session belongs to whoever opened it: another grant's token cannot ride it.
    const { principal } = auth;
    if (draining) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', 'Retry-After': RETRY_AFTER_S });
      res.end('Service Unavailable: zodexd is shutting down.\n');
      return;
    }

    let body: unknown;
    if (req.method === 'POST') {
      // The SDK's express helper stops at 100 kB, which a large apply_patch exceeds.
      const read = await readJsonBody(
        req,
        options.maxBodyBytes,
        `Request body too large: zodexd accepts at most ${options.maxBodyBytes} bytes (--max-body-bytes); split the patch into several apply_patch calls`,
        {
          timeoutMs: options.bodyTimeoutMs,
          tooLate: `Request Timeout: the body did not arrive within ${options.bodyTimeoutMs} ms (--body-timeout-ms); send it at once`,
        },
      );
      if (!read.ok) {
        if (read.status === 408) {
          res.once('finish', () => req.socket.destroy());
          return jsonRpcError(res, 408, -32600, read.message, { Connection: 'close' });
        }
        return jsonRpcError(res, read.status, read.status === 413 ? -32600 : -32700, read.status === 413 ? read.message : `Parse error: ${read.message}`);
      }
      body = read.value;
    }

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId !== 'string' && options.rev2026) {
      const { rev2026 } = options;
      if (req.method === 'POST') {
        const route = classifyPost(rev2026Headers(req.headers), body);
        if (route.kind === 'reject') return writeRejection(res, route);
        if (route.kind === '2026-07-28') {
          inFlight++;
          try {
            return await serveRev2026(req, res, route, rev2026, principal);
          } finally {
            inFlight--;
            if (inFlight === 0) drained?.();
          }
        }
      } else if (rev2026Headers(req.headers).protocolVersion === REV2026_VERSION) {
        // 2026-07-28 has no GET stream and no session to DELETE.
        res.writeHead(405, { 'Content-Type': 'application/json', Allow: 'POST' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: null,
            error: { code: -32000, message: `Method Not Allowed: protocol ${REV2026_VERSION} uses POST only (no GET stream, no session to DELETE)` },
          }),
        );
        return;
      }
    }
    let conversation: HttpSession | undefined;
    let connected: Promise<void> | undefined;
    if (typeof sessionId === 'string') {
      conversation = conversations.get(sessionId);
      if (conversation?.principal !== principal) conversation = undefined;
      if (!conversation)
        return jsonRpcError(res, 404, -32001, 'Session not found: it ended (DELETE, idle expiry, --max-conversations or a restart); initialize a new session');
    } else if (req.method === 'POST' && (isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      if (!conversations.admit()) {
        const message = `Service Unavailable: ${conversations.cap} sessions are open and each has a call in flight or a command running (--max-conversations ${conversations.cap}); retry later, or end a session (DELETE)`;
        return jsonRpcError(res, 503, -32000, message, { 'Retry-After': RETRY_AFTER_S });
      }
      ({ conversation, connected } = openConversation(principal));
      await connected;
    } else {
      return jsonRpcError(res, 400, -32000, 'Bad Request: no valid Mcp-Session-Id header; send an initialize request first');
    }

    conversation.lastActivity = Date.now();
    // Only POSTs are calls; a GET is a standing notification stream and keeps nothing alive.
    if (req.method !== 'POST') return conversation.transport.handleRequest(req, res, body);
    cancelOnDrop(res, conversation, body, log);
    conversation.inFlight++;
    inFlight++;
    try {
      await conversation.transport.handleRequest(req, res, body);
    } finally {
      conversation.inFlight--;
      conversation.lastActivity = Date.now();
      inFlight--;
      if (inFlight === 0) drained?.();
      // An initialize the SDK refused leaves no session behind.
      if (connected && conversation.opening) void conversation.close();
    }
  };

  // The checking interval bounds how late a header timeout is noticed (Node's default is 30 s).
  const server = http.createServer({ connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs) }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`http request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  // Tool calls can wait up to 5 minutes: no whole-request timeout; the body has its own deadline.
  server.requestTimeout = 0;
  server.headersTimeout = options.headersTimeoutMs; // then Node answers 408 and closes
  server.keepAliveTimeout = 5_000;

  const address = await listenOn(server, options.listen);
  authenticator?.listening(address.socketPath ? `unix:${address.socketPath}` : `tcp:${address.host}:${address.port}`);
  if (!policy.loopbackBind) {
    log(`warning: listening on non-loopback ${address.host}: anything that can reach it can drive this machine; no Host rule applies`);
    if (!policy.token && !authenticator)
      log('WARNING: --insecure-no-auth: no token is required. Anyone who can reach this address can run commands as this user.');
  }
  const url = address.socketPath ? `http://localhost${MCP_PATH}` : `http://${address.host}:${address.port}${MCP_PATH}`;
  log(
    address.socketPath
      ? `serving over http on unix:${address.socketPath} (path ${MCP_PATH}; Host and Origin rules as on loopback)`
      : `serving over http on ${url}`,
  );
  if (authenticator) log(authenticator.notice);

  const idleTimer = setInterval(() => conversations.sweep(options.idleMs), Math.min(IDLE_SWEEP_MS, options.idleMs));
  idleTimer.unref();

  const settled = (ms: number) =>
    inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, ms).unref();
        });

  let closing: Promise<void> | undefined;
  return {
    address,
    url,
    get sessions() {
      return conversations.size;
    },
    drain(reason, ms) {
      if (!draining) {
        draining = true;
        // The listener stays open while draining, so that newcomers get the 503 instead of a refusal.
        log(`${reason}: new requests get 503; letting ${inFlight} call(s) in flight finish (up to ${ms} ms)`);
        options.rev2026?.endSubscriptions(); // a subscriptions/listen is no call to wait for
        server.closeIdleConnections();
      }
      return settled(ms);
    },
    endPrincipal(principal) {
      const ending = conversations.values().filter((conversation) => conversation.principal === principal);
      for (const conversation of ending) void conversation.close();
      return ending.length;
    },
    close() {
      closing ??= (async () => {
        draining = true;
        clearInterval(idleTimer);
        // Calls whose commands were killed under them answer "killed": give them a moment.
        await settled(1_000);
        await Promise.all(conversations.values().map((conversation) => conversation.close()));
        authenticator?.close();
        options.rev2026?.close();
        server.close();
        server.closeAllConnections();
        address.removeSocket?.();
      })();
      return closing;
    },
  };
}
