// Reading a request body up to a limit and within a deadline, for the MCP listener, the Liveboard
// and OAuth's endpoints alike: as text (readBodyText), or as JSON (readJsonBody). A body announced
// or found larger than the limit is drained and answered 413 with `tooLarge`; one still incomplete
// at the deadline gets 408; an empty JSON body reads as undefined.

import type http from 'node:http';

export type BodyText = { ok: true; text: string } | { ok: false; status: 400 | 408 | 413; message: string };
export type JsonBody = { ok: true; value: unknown } | { ok: false; status: 400 | 408 | 413; message: string };

export interface BodyLimits {
  timeoutMs?: number; // the whole body must have arrived by then
  tooLate?: string; // the 408 message
}

export function readBodyText(
  req: http.IncomingMessage,
  limit: number,
  tooLarge = `request body larger than ${limit} bytes`,
  limits: BodyLimits = {},
): Promise<BodyText> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ ok: false, status: 413, message: tooLarge });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (result: BodyText) => {
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
      done({ ok: true, text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8') });
    });
  });
}

export async function readJsonBody(req: http.IncomingMessage, limit: number, tooLarge?: string, limits: BodyLimits = {}): Promise<JsonBody> {
  const body = await readBodyText(req, limit, tooLarge, limits);
  if (!body.ok) return body;
  try {
    return { ok: true, value: body.text === '' ? undefined : JSON.parse(body.text) };
  } catch {
    return { ok: false, status: 400, message: 'the request body is not valid JSON' };
  }
}
