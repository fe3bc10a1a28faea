// Reading a JSON request body up to a limit and within a deadline, for the MCP listener and the
// Liveboard alike. A body announced or found larger than the limit is drained and answered 413
// with `tooLarge`; one still incomplete at the deadline gets 408; an empty body reads as undefined.

import type http from 'node:http';

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 408 | 413; message: string };

export interface BodyLimits {
  timeoutMs?: number; // the whole body must have arrived by then
  tooLate?: string; // the 408 message
}

export function readJsonBody(req: http.IncomingMessage, limit: number, tooLarge = `request body larger than ${limit} bytes`, limits: BodyLimits = {}): Promise<JsonBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ ok: false, status: 413, message: tooLarge });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (result: JsonBody) => {
      clearTimeout(timer);
      resolve(result);
    };
    if (limits.timeoutMs !== undefined) {
      const message = limits.tooLate ?? `the request body did not arrive within ${limits.timeoutMs} ms`;
      timer = setTimeout(() => {
        req.pause();
        done({ ok: false, status: 408, message });
      }, limits.timeoutMs);
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('error', () => done({ ok: false, status: 400, message: 'the request body could not be read' }));
    req.on('end', () => {
      if (size > limit) return done({ ok: false, status: 413, message: tooLarge });
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      try {
        done({ ok: true, value: text === '' ? undefined : JSON.parse(text) });
      } catch {
        done({ ok: false, status: 400, message: 'the request body is not valid JSON' });
      }
    });
  });
}
