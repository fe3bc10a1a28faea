// MCP over streamable HTTP at http://HOST:PORT/mcp (seed 003), on the SDK's server transport.
// Flow per request: Host rule -> Origin rule -> path (/mcp or 404) -> bearer token -> drain (503)
// -> body (our own size limit and deadline, 413/408) -> the conversation (Mcp-Session-Id), or a
// new one for an initialize request (capped: conversations.ts). A POST whose connection drops
// is cancelled like notifications/cancelled. SIGINT/SIGTERM: 503 to newcomers, drain, exit 0.

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isLoopbackHost } from '../cli/config.js';
import type { Runtime } from '../server/runtime.js';
import { Conversation as ConversationState } from '../server/conversation.js';
import { createMcpServer } from '../server/server.js';
import { readJsonBody } from './body.js';
import { cancelOnDrop } from './cancel.js';
import { ConversationTable, type Conversation } from './conversations.js';
import { checkHost, checkOrigin, checkToken, type GuardPolicy, type Verdict } from './guard.js';

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

export async function serveHttp(runtime: Runtime): Promise<void> {
  const { config, log } = runtime;
  const loopbackBind = isLoopbackHost(config.listen.host);
  const policy: GuardPolicy = { loopbackBind, allowHosts: config.allowHosts, listenHost: config.listen.host, token: config.authToken };
  const hasRunningCommand = (id: string) => runtime.engine.list().some((session) => session.owner === id && !session.hasEnded);
  const conversations = new ConversationTable(config.maxConversations, hasRunningCommand, log);
  let draining = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;

  // Registered at once (as opening), so that the cap counts conversations still initializing.
  const openConversation = (): { conversation: Conversation; connected: Promise<void> } => {
    const id = randomUUID();
    const state = new ConversationState(runtime, id);
    const mcp = createMcpServer(runtime, state);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        conversation.opening = false;
      },
    });
    let closed = false;
    const conversation: Conversation = {
      id,
      transport,
      lastActivity: Date.now(),
      inFlight: 0,
      opening: true,
      async close() {
        if (closed) return;
        closed = true;
        conversations.delete(id);
        state.close();
        await mcp.close().catch(() => {});
      },
    };
    transport.onclose = () => void conversation.close();
    conversations.add(conversation);
    return { conversation, connected: mcp.connect(transport) };
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    for (const verdict of [checkHost(req.headers.host, policy), checkOrigin(req.headers.origin, policy)]) {
      if (!verdict.ok) return refuse(res, verdict);
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`Not Found: zodexd serves MCP at ${MCP_PATH} only.\n`);
      return;
    }
    const auth = checkToken(req.headers.authorization, policy);
    if (!auth.ok) return refuse(res, auth);
    if (draining) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', 'Retry-After': RETRY_AFTER_S });
      res.end('Service Unavailable: zodexd is shutting down.\n');
      return;
    }

    let body: unknown;
    if (req.method === 'POST') {
      // The SDK's express helper stops at 100 kB, which a large apply_patch exceeds.
      const read = await readJsonBody(req, config.maxBodyBytes, `Request body too large: zodexd accepts at most ${config.maxBodyBytes} bytes (--max-body-bytes); split the patch into several apply_patch calls`, {
        timeoutMs: config.bodyTimeoutMs,
        tooLate: `Request Timeout: the body did not arrive within ${config.bodyTimeoutMs} ms (--body-timeout-ms); send it at once`,
      });
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
    let conversation: Conversation | undefined;
    let connected: Promise<void> | undefined;
    if (typeof sessionId === 'string') {
      conversation = conversations.get(sessionId);
      if (!conversation) return jsonRpcError(res, 404, -32001, 'Session not found: it ended (DELETE, idle expiry, --max-conversations or a restart); initialize a new session');
    } else if (req.method === 'POST' && (isInitializeRequest(body) || (Array.isArray(body) && body.some(isInitializeRequest)))) {
      if (!conversations.admit()) {
        const message = `Service Unavailable: ${conversations.cap} sessions are open and each has a call in flight or a command running (--max-conversations ${conversations.cap}); retry later, or end a session (DELETE)`;
        return jsonRpcError(res, 503, -32000, message, { 'Retry-After': RETRY_AFTER_S });
      }
      ({ conversation, connected } = openConversation());
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
  const server = http.createServer({ connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs) }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`http request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  // Tool calls can wait up to 5 minutes: no whole-request timeout; the body has its own deadline.
  server.requestTimeout = 0;
  server.headersTimeout = config.headersTimeoutMs; // then Node answers 408 and closes
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.listen.port, config.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot listen on ${config.listen.host}:${config.listen.port}: ${error.code ?? error.message}`);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  if (!loopbackBind) {
    log(`warning: listening on non-loopback ${shownHost}: anything that can reach it can drive this machine; no Host rule applies`);
    if (!config.authToken) log('WARNING: --insecure-no-auth: no token is required. Anyone who can reach this address can run commands as this user.');
  }
  log(`serving over http on http://${shownHost}:${address.port}${MCP_PATH}`);

  const idleTimer = setInterval(() => conversations.sweep(config.httpIdleMs), Math.min(IDLE_SWEEP_MS, config.httpIdleMs));
  idleTimer.unref();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    draining = true;
    // The listener stays open while draining, so that newcomers get the 503 instead of a refusal.
    log(`${signal}: new requests get 503; letting ${inFlight} call(s) in flight finish (up to ${config.drainMs} ms)`);
    server.closeIdleConnections();
    if (inFlight > 0) {
      await new Promise<void>((resolve) => {
        drained = resolve;
        setTimeout(resolve, config.drainMs).unref();
      });
    }
    clearInterval(idleTimer);
    // Calls still waiting get their commands killed under them and answer "killed".
    await runtime.close();
    if (inFlight > 0) await new Promise<void>((resolve) => {
      drained = resolve;
      setTimeout(resolve, 1_000).unref();
    });
    await Promise.all(conversations.values().map((conversation) => conversation.close()));
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
