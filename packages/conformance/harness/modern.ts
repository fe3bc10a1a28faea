// The suite's 2026-07-28 client: a Transport under the SDK's (2025) Client that speaks the modern
// era on the wire. initialize becomes server/discover (its result is turned into an initialize
// result locally), every request gets the _meta envelope, HTTP requests the MCP-* headers and one
// POST each; cancelling a call on HTTP closes its stream. Nothing here is a session.

import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const MODERN_VERSION = '2026-07-28';
export const CLIENT_INFO = { name: 'zodex-conformance', version: '1.0.0' };

export function envelope(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

// The headers a modern POST of `message` carries (streamable-http.mdx "Request Metadata").
export function modernHeaders(message: { method?: string; params?: Record<string, unknown> }): Record<string, string> {
  const claimed = (message.params?._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/protocolVersion'];
  const headers: Record<string, string> = { 'mcp-protocol-version': typeof claimed === 'string' ? claimed : MODERN_VERSION };
  if (message.method) headers['mcp-method'] = message.method;
  const name = message.method === 'tools/call' ? message.params?.name : undefined;
  if (typeof name === 'string')
    headers['mcp-name'] =
      /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name) && !name.startsWith('=?base64?') ? name : `=?base64?${Buffer.from(name).toString('base64')}?=`;
  return headers;
}

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> };

// Wraps a message pipe (stdio: the SDK's stdio transport; HTTP: ModernHttpPipe) as a modern client.
export class ModernClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly discovering = new Map<string | number, string | number>(); // discover id -> initialize id

  // Like Codex, the client names its conversation in every request's _meta (threadId): each
  // connection of the suite is one agent, as each 2025 session is.
  constructor(
    readonly inner: Transport,
    private readonly meta: Record<string, unknown> = { threadId: randomUUID() },
  ) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message) => this.receive(message as Message);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => this.onclose?.();
    await this.inner.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as Message;
    if (m.method === 'notifications/initialized') return;
    if (m.method === 'initialize' && m.id !== undefined) {
      const id = `discover-${m.id}`;
      this.discovering.set(id, m.id);
      return this.inner.send({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: envelope(this.meta) } } as JSONRPCMessage);
    }
    if (m.id !== undefined && m.method) {
      const params = m.params ?? {};
      const meta = (params._meta ?? {}) as Record<string, unknown>;
      return this.inner.send({ ...m, params: { ...params, _meta: envelope({ ...this.meta, ...meta }) } } as JSONRPCMessage);
    }
    return this.inner.send(message);
  }

  async close(): Promise<void> {
    await this.inner.close();
  }

  private receive(message: Message): void {
    const initializeId = message.id !== undefined ? this.discovering.get(message.id) : undefined;
    if (initializeId !== undefined && message.result) {
      this.discovering.delete(message.id!);
      const { capabilities, instructions, _meta } = message.result as { capabilities: unknown; instructions?: string; _meta?: Record<string, unknown> };
      const serverInfo = _meta?.['io.modelcontextprotocol/serverInfo'];
      // The SDK Client checks the version against those it knows; the wire stays modern.
      const result = { protocolVersion: '2025-11-25', capabilities, serverInfo, ...(instructions ? { instructions } : {}) };
      this.onmessage?.({ jsonrpc: '2.0', id: initializeId, result } as JSONRPCMessage);
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }
}

// One POST per message to a modern /mcp: JSON, 202, or an SSE stream read to its end.
export class ModernHttpPipe implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly open = new Map<string | number, AbortController>();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as Message;
    if (m.method === 'notifications/cancelled') {
      // HTTP has no cancel notification in this revision: closing the stream is the cancel.
      const id = (m.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.open.get(id)?.abort();
      return;
    }
    const abort = new AbortController();
    if (m.id !== undefined) this.open.set(m.id, abort);
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...this.headers, ...modernHeaders(m) },
        body: JSON.stringify(message),
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return; // cancelled before the answer began
      throw error;
    }
    void this.read(m, response).finally(() => {
      if (m.id !== undefined && this.open.get(m.id) === abort) this.open.delete(m.id);
    });
  }

  private async read(m: Message, response: Response): Promise<void> {
    try {
      if (response.status === 202) return;
      const type = response.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && response.body) {
        const decoder = new TextDecoder();
        let buffer = '';
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const data = buffer
              .slice(0, end)
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5).trimStart())
              .join('\n');
            buffer = buffer.slice(end + 2);
            if (data) this.onmessage?.(JSON.parse(data) as JSONRPCMessage);
          }
        }
        return;
      }
      const text = await response.text();
      if (text) this.onmessage?.(JSON.parse(text) as JSONRPCMessage);
      else if (!response.ok) this.onerror?.(new Error(`HTTP ${response.status} for ${m.method}`));
    } catch (error) {
      if ((error as Error).name !== 'AbortError') this.onerror?.(error as Error);
    }
  }

  async close(): Promise<void> {
    for (const abort of this.open.values()) abort.abort();
    this.open.clear();
    this.onclose?.();
  }
}
