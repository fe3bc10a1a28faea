import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Rev2026Server, RequestIo } from '../../../src/server/rev2026-07-28/dispatch.js';
import { StdioEraRouter } from '../../../src/transport/stdio/eras.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const rev2026Call = (id: number, method = 'tools/list') => ({ jsonrpc: '2.0', id, method, params: { _meta: META } }) as JSONRPCMessage;
const initialize = (id: number) =>
  ({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'codex', version: '1' } },
  }) as JSONRPCMessage;

function router() {
  const rev2025: JSONRPCMessage[] = [];
  const sent: JSONRPCMessage[] = [];
  const signals = new Map<unknown, AbortSignal>();
  const fake = {
    handle: (request: { id: unknown; method: string }, io: RequestIo) => {
      signals.set(request.id, io.signal);
      if (request.method === 'slow') return new Promise<undefined>((resolve) => io.signal.addEventListener('abort', () => resolve(undefined)));
      return Promise.resolve({ jsonrpc: '2.0', id: request.id, result: { method: request.method } });
    },
  } as unknown as Rev2026Server;
  const r = new StdioEraRouter(
    fake,
    async (message) => void sent.push(message),
    (message) => rev2025.push(message),
  );
  return { r, rev2025, sent, signals };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('StdioEraRouter: both eras on one stdio process', () => {
  it('answers a server/discover probe and still lets the client fall back to initialize (legacy pinned)', async () => {
    const { r, rev2025, sent } = router();
    r.route(rev2026Call(1, 'server/discover'));
    await tick();
    expect(sent).toHaveLength(1);
    expect(r.era).toBe('undecided');
    r.route(initialize(2));
    expect(r.era).toBe('2025-11-25');
    r.route(rev2026Call(3)); // after initialize everything belongs to the 2025 session
    expect(rev2025.map((m) => (m as { id: number }).id)).toEqual([2, 3]);
  });

  it('pins modern at the first modern request; a later initialize is refused with -32022 naming the version', async () => {
    const { r, rev2025, sent } = router();
    r.route(rev2026Call(1));
    r.route(initialize(2));
    await tick();
    expect(r.era).toBe('2026-07-28');
    expect(rev2025).toHaveLength(0);
    const refusal = sent.find((m) => (m as { id: number }).id === 2) as { error: { code: number; data: unknown } };
    expect(refusal.error.code).toBe(-32022);
    expect(refusal.error.data).toEqual({ supported: ['2026-07-28'] });
  });

  it('notifications/cancelled aborts a modern request, which then gets no response', async () => {
    const { r, sent, signals } = router();
    r.route(rev2026Call(5, 'slow'));
    r.route({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } } as JSONRPCMessage);
    await tick();
    expect(signals.get(5)?.aborted).toBe(true);
    expect(sent).toHaveLength(0);
  });

  it('sends 2025 traffic (no _meta claim before any era) to the SDK server unchanged', () => {
    const { r, rev2025 } = router();
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' } as JSONRPCMessage;
    r.route(ping);
    expect(rev2025).toEqual([ping]);
    expect(r.era).toBe('undecided');
  });
});
