// The operations listener (--ops-listen HOST:PORT), never the MCP one: GET or HEAD of /healthz
// (the process and its engine answer), /readyz (accepting new work; 503 from the moment a drain
// starts) and /metrics (Prometheus text format). No token: it serves counts and states only, never
// a command, an output or a secret. Flow per request: Host and Origin rules (on a loopback bind,
// as on every zodex listener) -> method (GET, HEAD; else 405) -> path (else 404) -> answer.

import http from 'node:http';
import type { Log } from '../../log.js';
import type { ListenAddress } from '../../net/address.js';
import { checkHostAndOrigin, guardPolicy } from '../../net/guard.js';
import { listenOn } from '../../net/listen.js';
import { METRICS_CONTENT_TYPE } from './metrics.js';

export const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

// What the answers read, at each request.
export interface OpsState {
  // undefined when healthy, else why not (the engine no longer starts commands)
  unhealthy(): string | undefined;
  // undefined when ready, else why not: 'starting', 'draining', ...
  notReady(): string | undefined;
  metrics(): Promise<string>;
}

export interface OpsListenerOptions {
  listen: ListenAddress;
  allowHosts: readonly string[];
  state: OpsState;
  log: Log;
}

export interface OpsListener {
  url: string; // http://HOST:PORT
  close(): Promise<void>;
}

function answer(res: http.ServerResponse, status: number, type: string, body: string, head: boolean): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

const json = (value: Record<string, unknown>) => `${JSON.stringify(value)}\n`;

export async function startOpsListener(options: OpsListenerOptions): Promise<OpsListener> {
  const { state, log } = options;
  const policy = guardPolicy(options.listen, options.allowHosts, undefined);
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const place = checkHostAndOrigin(req.headers, policy);
    if (!place.ok) return answer(res, place.status, 'text/plain; charset=utf-8', place.body, false);
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.setHeader('Allow', 'GET, HEAD');
      return answer(res, 405, 'text/plain; charset=utf-8', 'Method Not Allowed: the ops listener answers GET and HEAD only.\n', false);
    }
    const path = (req.url ?? '/').split('?')[0];
    switch (path) {
      case '/healthz': {
        const why = state.unhealthy();
        return answer(res, why ? 503 : 200, 'application/json', json(why ? { status: 'unhealthy', reason: why } : { status: 'ok' }), head);
      }
      case '/readyz': {
        const why = state.notReady();
        return answer(res, why ? 503 : 200, 'application/json', json(why ? { status: 'not ready', reason: why } : { status: 'ready' }), head);
      }
      case '/metrics':
        return answer(res, 200, METRICS_CONTENT_TYPE, await state.metrics(), head);
      default:
        return answer(res, 404, 'text/plain; charset=utf-8', `Not Found: the ops listener serves ${OPS_PATHS.join(', ')}.\n`, head);
    }
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`ops: request failed: ${error instanceof Error ? error.message : String(error)}`, { level: 'error' });
      if (!res.headersSent) answer(res, 500, 'text/plain; charset=utf-8', 'Internal error\n', false);
      else res.end();
    });
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  const bound = await listenOn(server, options.listen, 'the ops listener');
  const url = `http://${bound.host}:${bound.port}`;
  if (!policy.loopbackBind)
    log(
      `ops listener on non-loopback ${bound.host}: /healthz, /readyz and /metrics answer anyone who can reach it, without a token (they show counts and states, never commands or output)`,
    );
  log(`ops listener on ${url} (/healthz, /readyz, /metrics)`);
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
