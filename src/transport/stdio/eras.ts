// Both eras on one stdio process. The era is chosen by how the client opens: an initialize pins
// 2025-11-25 (the SDK server answers everything after it); a 2026-07-28 request the 2026-07-28 server serves
// (its envelope well-formed, its version served) pins 2026-07-28; a server/discover probe, and a
// request refused for its envelope or version (-32602, -32022), are answered and pin nothing, so
// the client may still fall back to initialize.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../../errors.js';
import type { Rev2026Response, Rev2026Server, RequestId } from '../../server/rev2026-07-28/dispatch.js';
import { INVALID_REQUEST, errorReply } from './jsonrpc.js';
import {
  SUPPORTED_REV2026_VERSIONS,
  UNSUPPORTED_VERSION,
  claimedVersion,
  hasEnvelopeClaim,
  isRev2026Version,
  readEnvelope,
} from '../../wire/rev2026-07-28/envelope.js';

export type Era = 'undecided' | '2025-11-25' | '2026-07-28';

type Message = { id?: unknown; method?: unknown; params?: unknown };

export class StdioEraRouter {
  private current: Era = 'undecided';
  private readonly inFlight = new Map<RequestId, AbortController>();

  constructor(
    private readonly rev2026: Rev2026Server,
    private readonly send: (message: JSONRPCMessage) => Promise<void>,
    private readonly rev2025: (message: JSONRPCMessage) => void,
  ) {}

  get era(): Era {
    return this.current;
  }

  route(message: JSONRPCMessage): void {
    const { id, method, params } = message as Message;
    if (typeof method !== 'string') return this.rev2025(message); // a response to a 2025-11-25 server request
    if (this.current === '2025-11-25') return this.rev2025(message);
    const isRequest = typeof id === 'string' || typeof id === 'number';
    if (!isRequest) {
      if (method === 'notifications/cancelled') {
        const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
        const pending = typeof requestId === 'string' || typeof requestId === 'number' ? this.inFlight.get(requestId) : undefined;
        if (pending) return pending.abort();
      }
      // 2026-07-28 notifications carry nothing zodex acts on; before any era, the 2025-11-25 stack decides.
      return this.current === '2026-07-28' ? undefined : this.rev2025(message);
    }
    const rev2026Claim = hasEnvelopeClaim(params) && isRev2026Version(claimedVersion(params) ?? '');
    if (method === 'initialize' && !rev2026Claim) {
      if (this.current === '2026-07-28') return void this.send(initializeRefused(id));
      this.current = '2025-11-25';
      return this.rev2025(message);
    }
    if (this.current === 'undecided' && !hasEnvelopeClaim(params) && method !== 'server/discover') return this.rev2025(message);
    if (method !== 'server/discover' && readEnvelope(params).ok) this.current = '2026-07-28';
    // An id still in flight names one request (it is how a cancellation finds it): a second
    // request under it is refused, never run beside the first, whose cancellation it would steal.
    if (this.inFlight.has(id)) return void this.send(idInUse(id) as JSONRPCMessage); // its id is no null
    void this.serve(id, method, params as Record<string, unknown> | undefined);
  }

  private async serve(id: RequestId, method: string, params: Record<string, unknown> | undefined): Promise<void> {
    const abort = new AbortController();
    this.inFlight.set(id, abort);
    try {
      const response = await this.rev2026.handle(
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

// Worded as the framing's own -32600 replies are: by the same errorReply.
const idInUse = (id: RequestId) =>
  errorReply(
    id,
    INVALID_REQUEST,
    'INVALID_REQUEST',
    `id ${typeof id === 'number' ? id : quote(id, 40)} is already used by a request in flight; give each request its own id`,
  );

function initializeRefused(id: RequestId): Rev2026Response {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: UNSUPPORTED_VERSION,
      message: `this stdio connection already speaks ${SUPPORTED_REV2026_VERSIONS.join(', ')} (its first request carried that _meta); initialize is a 2025 handshake, so start a new zodexd process to speak 2025-11-25`,
      data: { supported: [...SUPPORTED_REV2026_VERSIONS] },
    },
  };
}
