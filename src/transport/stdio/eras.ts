// Both eras on one stdio process. The era is chosen by how the client opens: an initialize pins
// legacy (the SDK server answers everything after it); a modern request the modern server serves
// (its envelope well-formed, its version served) pins modern; a server/discover probe, and a
// request refused for its envelope or version (-32602, -32022), are answered and pin nothing, so
// the client may still fall back to initialize.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../../errors.js';
import type { ModernResponse, ModernServer, RequestId } from '../../server/modern/dispatch.js';
import { SUPPORTED_MODERN_VERSIONS, UNSUPPORTED_VERSION, claimedVersion, hasEnvelopeClaim, isModernVersion, readEnvelope } from '../../server/modern/envelope.js';

export type Era = 'undecided' | 'legacy' | 'modern';

type Message = { id?: unknown; method?: unknown; params?: unknown };

export class StdioEraRouter {
  private current: Era = 'undecided';
  private readonly inFlight = new Map<RequestId, AbortController>();

  constructor(
    private readonly modern: ModernServer,
    private readonly send: (message: JSONRPCMessage) => Promise<void>,
    private readonly legacy: (message: JSONRPCMessage) => void,
  ) {}

  get era(): Era {
    return this.current;
  }

  route(message: JSONRPCMessage): void {
    const { id, method, params } = message as Message;
    if (typeof method !== 'string') return this.legacy(message); // a response to a legacy server request
    if (this.current === 'legacy') return this.legacy(message);
    const isRequest = typeof id === 'string' || typeof id === 'number';
    if (!isRequest) {
      if (method === 'notifications/cancelled') {
        const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
        const pending = typeof requestId === 'string' || typeof requestId === 'number' ? this.inFlight.get(requestId) : undefined;
        if (pending) return pending.abort();
      }
      // Modern notifications carry nothing zodex acts on; before any era, the legacy stack decides.
      return this.current === 'modern' ? undefined : this.legacy(message);
    }
    const modernClaim = hasEnvelopeClaim(params) && isModernVersion(claimedVersion(params) ?? '');
    if (method === 'initialize' && !modernClaim) {
      if (this.current === 'modern') return void this.send(initializeRefused(id));
      this.current = 'legacy';
      return this.legacy(message);
    }
    if (this.current === 'undecided' && !hasEnvelopeClaim(params) && method !== 'server/discover') return this.legacy(message);
    if (method !== 'server/discover' && readEnvelope(params).ok) this.current = 'modern';
    // An id still in flight names one request (it is how a cancellation finds it): a second
    // request under it is refused, never run beside the first, whose cancellation it would steal.
    if (this.inFlight.has(id)) return void this.send(idInUse(id));
    void this.serve(id, method, params as Record<string, unknown> | undefined);
  }

  private async serve(id: RequestId, method: string, params: Record<string, unknown> | undefined): Promise<void> {
    const abort = new AbortController();
    this.inFlight.set(id, abort);
    try {
      const response = await this.modern.handle(
        { id, method, params },
        { signal: abort.signal, notify: (notification) => void (abort.signal.aborted ? undefined : this.send(notification as JSONRPCMessage)), peer: 'stdio' },
      );
      // A cancelled request gets no response (cancellation.mdx: "MUST NOT send any further messages").
      if (response !== undefined && !abort.signal.aborted) await this.send(response as JSONRPCMessage);
    } finally {
      if (this.inFlight.get(id) === abort) this.inFlight.delete(id);
    }
  }
}

function idInUse(id: RequestId): ModernResponse {
  // As the framing's own -32600 replies are worded (transport/jsonrpc.ts errorReply).
  const message = `INVALID_REQUEST: id ${typeof id === 'number' ? id : quote(id, 40)} is already used by a request in flight; give each request its own id`;
  return { jsonrpc: '2.0', id, error: { code: -32600, message, data: { code: 'INVALID_REQUEST' } } };
}

function initializeRefused(id: RequestId): ModernResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: UNSUPPORTED_VERSION,
      message: `this stdio connection already speaks ${SUPPORTED_MODERN_VERSIONS.join(', ')} (its first request carried that _meta); initialize is a 2025 handshake, so start a new zodexd process to speak 2025-11-25`,
      data: { supported: [...SUPPORTED_MODERN_VERSIONS] },
    },
  };
}
