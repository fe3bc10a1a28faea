// Reading a request body as text up to a limit and within a deadline (OAuth's form and JSON
// posts). Over the limit: drained, not kept, and 413; still incomplete at the deadline: 408.

import type http from 'node:http';

export type BodyText = { ok: true; text: string } | { ok: false; status: 400 | 408 | 413; message: string };

export function readBodyText(req: http.IncomingMessage, limit: number, timeoutMs: number): Promise<BodyText> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve({ ok: false, status: 413, message: `request body larger than ${limit} bytes` });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      req.pause();
      resolve({ ok: false, status: 408, message: `the request body did not arrive within ${timeoutMs} ms` });
    }, timeoutMs);
    const done = (result: BodyText) => {
      clearTimeout(timer);
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('error', () => done({ ok: false, status: 400, message: 'the request body could not be read' }));
    req.on('end', () => done(size > limit ? { ok: false, status: 413, message: `request body larger than ${limit} bytes` } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }));
  });
}
