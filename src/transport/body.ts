// Reading a JSON request body up to a limit, for the MCP listener and the Liveboard alike.
// A body announced or found larger than the limit is drained and answered 413 with `tooLarge`;
// an empty body reads as undefined.

import type http from 'node:http';

export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

export async function readJsonBody(req: http.IncomingMessage, limit: number, tooLarge = `request body larger than ${limit} bytes`): Promise<JsonBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return { ok: false, status: 413, message: tooLarge };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    }
  } catch {
    return { ok: false, status: 400, message: 'the request body could not be read' };
  }
  if (size > limit) return { ok: false, status: 413, message: tooLarge };
  try {
    const text = Buffer.concat(chunks).toString('utf8');
    return { ok: true, value: text === '' ? undefined : JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, message: 'the request body is not valid JSON' };
  }
}
