// Raw 2026-07-28 requests with full control of every header and _meta key: one POST, its status
// and the JSON-RPC messages it answered with (a JSON body or each event of its SSE stream).

import http from 'node:http';
import { envelope, modernHeaders } from './modern.js';
import { MCP_HEADERS, rawRequest, type RawResponse } from './raw-http.js';

export interface ModernReply {
  jsonrpc: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

export function modernRequest(
  id: string | number,
  method: string,
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): { jsonrpc: '2.0'; id: string | number; method: string; params: Record<string, unknown> } {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(meta) } };
}

export function messagesOf(response: RawResponse): ModernReply[] {
  if ((response.headers['content-type'] ?? '').includes('text/event-stream')) {
    return response.body
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as ModernReply);
  }
  try {
    return response.body.trim() ? [JSON.parse(response.body) as ModernReply] : [];
  } catch {
    return []; // a plain-text refusal (403, 404, 413 before any JSON-RPC)
  }
}

// POSTs `message` with the headers it should carry, changed by `headers` (a value of null drops one).
export async function modernPost(
  url: string,
  message: object,
  headers: Record<string, string | null> = {},
): Promise<RawResponse & { messages: ModernReply[]; reply: ModernReply | undefined }> {
  const all: Record<string, string> = { ...MCP_HEADERS, ...modernHeaders(message as { method?: string; params?: Record<string, unknown> }) };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete all[name.toLowerCase()];
    else all[name.toLowerCase()] = value;
  }
  const response = await rawRequest(url, { method: 'POST', headers: all, body: JSON.stringify(message) });
  const messages = messagesOf(response);
  return { ...response, messages, reply: messages.find((m) => m.result !== undefined || m.error !== undefined) };
}

// A POST left open: the SSE messages as they arrive, and a way to close the stream (= cancel).
export function openStream(
  url: string,
  message: object,
  headers: Record<string, string> = {},
): { messages: ModernReply[]; status: Promise<number>; ended: Promise<void>; close(): void } {
  const target = new URL(url);
  const messages: ModernReply[] = [];
  let resolveStatus!: (status: number) => void;
  const status = new Promise<number>((resolve) => (resolveStatus = resolve));
  let resolveEnd!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnd = resolve));
  const req = http.request(
    {
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: { ...MCP_HEADERS, ...modernHeaders(message as { method?: string }), ...headers },
    },
    (res) => {
      resolveStatus(res.statusCode ?? 0);
      let pending = '';
      res.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        let end: number;
        while ((end = pending.indexOf('\n\n')) !== -1) {
          const data = pending
            .slice(0, end)
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5))
            .join('\n');
          pending = pending.slice(end + 2);
          if (data.trim()) messages.push(JSON.parse(data) as ModernReply);
        }
      });
      res.on('end', resolveEnd);
      res.on('close', resolveEnd);
    },
  );
  req.on('error', () => {
    resolveStatus(0);
    resolveEnd();
  });
  req.end(JSON.stringify(message));
  return { messages, status, ended, close: () => req.destroy() };
}
