// Plain requests (server/plain-request.ts): only what the SDK's dispatch would take as a request,
// handed straight to its request path; everything else still goes through its dispatch.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { JSONRPCRequestSchema, isJSONRPCErrorResponse, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { connectServer, isPlainRequest } from '../../src/server/plain-request.js';

describe('plain requests', () => {
  it('are only messages the SDK dispatch would take as requests', () => {
    const value = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.constant(null), fc.array(fc.integer(), { maxLength: 1 }), fc.dictionary(fc.constantFrom('_meta', 'name', 'x'), fc.oneof(fc.integer(), fc.dictionary(fc.constantFrom('progressToken', 'x'), fc.oneof(fc.integer(), fc.constant({}))))));
    const message = fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), value), id: value, method: fc.oneof(fc.constant('ping'), value), params: value, result: value, error: value, extra: value }, { requiredKeys: [] });
    const nearlyPlain = fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string({ maxLength: 2 })), method: fc.constant('ping'), params: value }, { requiredKeys: ['jsonrpc', 'id', 'method'] });
    let plain = 0;
    fc.assert(
      fc.property(fc.oneof(message, nearlyPlain), (m) => {
        if (!isPlainRequest(m)) return;
        plain += 1;
        expect(JSONRPCRequestSchema.safeParse(m).success, JSON.stringify(m)).toBe(true);
        expect(isJSONRPCResultResponse(m) || isJSONRPCErrorResponse(m)).toBe(false);
      }),
      { numRuns: 5000 },
    );
    expect(plain).toBeGreaterThan(0);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).toBe(true);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: { progressToken: 1 } } })).toBe(false);
    expect(isPlainRequest({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toBe(false);
  });

  it('reach the handler without the dispatch parses; other messages still take them', async () => {
    const server = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const replies: JSONRPCMessage[] = [];
    client.onmessage = (message) => void replies.push(message);
    await connectServer(server, serverSide);
    await client.start();
    const parse = vi.spyOn(JSONRPCRequestSchema, 'safeParse');
    try {
      await client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      await expect.poll(() => replies.length).toBe(1);
      expect(parse).not.toHaveBeenCalled();
      await client.send({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { progressToken: 5 } } });
      await expect.poll(() => replies.length).toBe(2);
      expect(parse).toHaveBeenCalled();
      expect(replies).toEqual([
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    } finally {
      parse.mockRestore();
      await server.close();
    }
  });
});
