// One 2026-07-28 POST, after the guardrails and the era check: a notification gets
// 202; a request goes to the 2026-07-28 server and is answered as JSON, or as its own SSE stream once
// it sends a notification (progress, a subscription's acknowledgement). A closed stream cancels it.

import type http from 'node:http';
import type { Rev2026Response, Rev2026Server, Notification } from '../../server/rev2026-07-28/dispatch.js';
import { statusOf, type Route } from '../../wire/rev2026-07-28/classify.js';

// An open SSE stream (a long call, subscriptions/listen) gets a comment line this often, so that
// proxies and client idle timers do not close it during quiet periods.
const KEEPALIVE_MS = 25_000;

export function writeRejection(res: http.ServerResponse, route: Extract<Route, { kind: 'reject' }>): void {
  res.writeHead(route.status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: route.id, error: route.error }));
}

export async function serveRev2026(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  route: Extract<Route, { kind: '2026-07-28' }>,
  rev2026: Rev2026Server,
  principal = 'static',
): Promise<void> {
  const { message } = route;
  if (message.id === undefined) {
    // This revision defines no client notifications over HTTP (cancelling = closing the stream).
    res.writeHead(202).end();
    return;
  }
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let keepalive: NodeJS.Timeout | undefined;
  const openStream = () => {
    if (res.headersSent) return;
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    keepalive = setInterval(() => res.write(':\n\n'), KEEPALIVE_MS);
    keepalive.unref();
  };
  const event = (value: Notification | Rev2026Response) => res.write(`event: message\ndata: ${JSON.stringify(value)}\n\n`);
  try {
    const response = await rev2026.handle(
      { id: message.id, method: message.method, params: message.params },
      {
        signal: abort.signal,
        notify: (notification) => {
          if (abort.signal.aborted || res.writableEnded) return;
          openStream();
          event(notification);
        },
        peer: `http ${req.socket.remoteAddress ?? ''}`,
        principal,
      },
    );
    // Cancelled: the client is gone and nothing more may be sent for this request.
    if (response === undefined || abort.signal.aborted) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (res.headersSent) {
      event(response);
      res.end();
      return;
    }
    const status = 'error' in response ? statusOf(response.error.code) : 200;
    res.writeHead(status, { 'Content-Type': 'application/json', ...(status === 503 ? { 'Retry-After': '5' } : {}) });
    res.end(JSON.stringify(response));
  } finally {
    clearInterval(keepalive);
  }
}
