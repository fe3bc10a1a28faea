// Reading a JSON request body up to a limit, for the MCP listener and the Liveboard alike.
// A body announced or found larger than the limit is drained and answered 413 with `tooLarge`;
// an empty body reads as undefined.

import type http from 'node:http';

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

export function readJsonBody(req: http.IncomingMessage, limit: number, tooLarge = `request body larger than ${limit} bytes`): Promise<JsonBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ ok: false, status: 413, message: tooLarge });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('error', () => resolve({ ok: false, status: 400, message: 'the request body could not be read' }));
    req.on('end', () => {
      if (size > limit) return resolve({ ok: false, status: 413, message: tooLarge });
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      try {
        resolve({ ok: true, value: text === '' ? undefined : JSON.parse(text) });
      } catch {
        resolve({ ok: false, status: 400, message: 'the request body is not valid JSON' });
      }
    });
  });
}
