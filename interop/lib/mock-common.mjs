// @ts-check
// A scripted model behind a loopback HTTP server: each request the client makes for its main
// conversation gets the next turn of the script; every request is recorded for the test to read.
// The two wire formats (Anthropic Messages, OpenAI Responses) live in their own modules.

import http from 'node:http';

/**
 * @typedef {{ name: string, input: Record<string, unknown> }} ToolCall
 * @typedef {{ tools: ToolCall[] } | { text: string }} Turn
 * @typedef {{ method: string, url: string, headers: http.IncomingHttpHeaders, body: any }} Recorded
 * @typedef {(request: any, recorded: Recorded[]) => Turn} TurnFn
 * @typedef {{ isMain: (body: any) => boolean, respond: (res: http.ServerResponse, turn: Turn, body: any, n: number) => void, other: (req: Recorded, res: http.ServerResponse) => boolean }} Wire
 */

/**
 * Serves `script` (turns, or functions of the request that return one) over `wire`.
 * After the script runs out, the model answers "done".
 * @param {Wire} wire
 * @param {(Turn | TurnFn)[]} script
 */
export async function startMock(wire, script) {
  /** @type {Recorded[]} */
  const requests = [];
  /** @type {Recorded[]} */
  const main = [];
  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([]);
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      if (wire.other(recorded, res)) return;
      if (!wire.isMain(body)) {
        wire.respond(res, { text: 'ok' }, body, requests.length);
        return;
      }
      main.push(recorded);
      const step = script[main.length - 1] ?? { text: 'done' };
      let turn;
      try {
        turn = typeof step === 'function' ? step(body, main) : step;
      } catch (error) {
        turn = { text: `mock script failed: ${String(error)}` };
      }
      wire.respond(res, turn, body, requests.length);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    /** every request received, in order */
    requests,
    /** the requests that carried the main conversation (one per turn) */
    main,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/** @param {http.ServerResponse} res @param {[string, unknown][]} events */
export function sendSse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

/** @param {http.ServerResponse} res @param {number} status @param {unknown} body */
export function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
