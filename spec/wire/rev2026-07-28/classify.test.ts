import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_VERSION } from '../../../src/wire/rev2026-07-28/envelope.js';
import { classifyPost, decodeHeaderValue, rev2026Headers, statusOf, type Rev2026Headers } from '../../../src/wire/rev2026-07-28/classify.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const call = (name = 'exec_command', meta: Record<string, unknown> = META) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: meta },
});
const headers = (over: Partial<Rev2026Headers> = {}): Rev2026Headers => ({
  protocolVersion: '2026-07-28',
  method: 'tools/call',
  name: 'exec_command',
  ...over,
});
const b64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('classifyPost: the era of a POST', () => {
  it('routes 2025 traffic (initialize, no _meta claim, batches, responses) to the legacy stack', () => {
    const none = { protocolVersion: undefined, method: undefined, name: undefined };
    expect(classifyPost(none, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } })).toEqual({ kind: '2025-11-25' });
    expect(classifyPost({ ...none, protocolVersion: '2025-11-25' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).toEqual({ kind: '2025-11-25' });
    expect(classifyPost(none, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }])).toEqual({ kind: '2025-11-25' });
    expect(classifyPost(none, { jsonrpc: '2.0', id: 1, result: {} })).toEqual({ kind: '2025-11-25' });
    expect(classifyPost(none, { jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ kind: '2025-11-25' });
  });

  it('routes a request whose _meta claims 2026-07-28, with matching headers, to the modern server', () => {
    const route = classifyPost(headers(), call());
    expect(route.kind).toBe('2026-07-28');
    expect(
      classifyPost(headers({ method: 'server/discover', name: undefined }), { jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: META } })
        .kind,
    ).toBe('2026-07-28');
  });

  it('answers the header ladder with 400 and -32020, naming the header', () => {
    const cases: [Partial<Rev2026Headers>, RegExp][] = [
      [{ protocolVersion: undefined }, /MCP-Protocol-Version header is missing/],
      [{ protocolVersion: '2026-08-01' }, /MCP-Protocol-Version header "2026-08-01" does not match/],
      [{ method: undefined }, /Mcp-Method header is missing/],
      [{ method: 'tools/list' }, /Mcp-Method header "tools\/list" does not match/],
      [{ name: undefined }, /Mcp-Name header is missing/],
      [{ name: 'write_stdin' }, /Mcp-Name header "write_stdin" does not match params.name "exec_command"/],
      [{ name: '=?base64?not base64?=' }, /invalid =\?base64\?/],
    ];
    for (const [over, message] of cases) {
      const route = classifyPost(headers(over), call());
      expect(route.kind, JSON.stringify(over)).toBe('reject');
      if (route.kind !== 'reject') continue;
      expect(route.status).toBe(400);
      expect(route.error.code).toBe(HEADER_MISMATCH);
      expect(route.error.message).toMatch(message);
      expect(route.id).toBe(7);
    }
  });

  it('decodes a Base64-sentinel Mcp-Name before comparing it', () => {
    expect(classifyPost(headers({ name: b64('exec_command') }), call()).kind).toBe('2026-07-28');
    expect(classifyPost(headers({ name: b64('wëird') }), call('wëird')).kind).toBe('2026-07-28');
  });

  it('rejects a missing or malformed envelope with 400 -32602, and an unserved version with 400 -32022 after the headers', () => {
    const missing = classifyPost(headers(), call('exec_command', { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }));
    expect(missing).toMatchObject({ kind: 'reject', status: 400, error: { code: INVALID_PARAMS } });
    const headerOnly = classifyPost(headers(), { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'exec_command' } });
    expect(headerOnly).toMatchObject({ kind: 'reject', status: 400, error: { code: INVALID_PARAMS } });
    const future = classifyPost(
      headers({ protocolVersion: '2099-01-01' }),
      call('exec_command', { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
    );
    expect(future).toMatchObject({
      kind: 'reject',
      status: 400,
      error: { code: UNSUPPORTED_VERSION, data: { supported: ['2026-07-28'], requested: '2099-01-01' } },
    });
  });

  it('refuses an initialize sent with a modern version header, and a batch holding a modern request', () => {
    const init = classifyPost(headers({ method: 'initialize' }), { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    expect(init).toMatchObject({ kind: 'reject', status: 400, error: { code: HEADER_MISMATCH } });
    expect(classifyPost(headers(), [call()])).toMatchObject({ kind: 'reject', status: 400, error: { code: -32600 } });
  });

  it('never echoes an unbounded header or body value', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 200, maxLength: 5000 }), (name) => {
        const route = classifyPost(headers({ name: 'x' }), call(name));
        return route.kind === 'reject' && route.error.message.length < 400;
      }),
      { numRuns: 30 },
    );
  });

  it("maps the modern server's errors to HTTP statuses: unknown method 404, busy 503, else 200", () => {
    expect(statusOf(-32601)).toBe(404);
    expect(statusOf(-32000)).toBe(503);
    expect(statusOf(-32602)).toBe(200); // e.g. an unknown tool: the envelope was already checked
  });
});

describe('header helpers', () => {
  it('decodeHeaderValue: plain values pass, sentinels decode, broken sentinels are undefined', () => {
    expect(decodeHeaderValue('plain')).toBe('plain');
    expect(decodeHeaderValue(b64('Hello, 世界'))).toBe('Hello, 世界');
    expect(decodeHeaderValue('=?base64?abc?=')).toBeUndefined();
    expect(decodeHeaderValue(`=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`)).toBeUndefined();
  });

  it('rev2026Headers reads the three headers case-insensitively as Node gives them, trimming OWS', () => {
    expect(rev2026Headers({ 'mcp-protocol-version': ' 2026-07-28\t', 'mcp-method': 'tools/call', 'mcp-name': ['a', 'b'] })).toEqual({
      protocolVersion: '2026-07-28',
      method: 'tools/call',
      name: 'a, b',
    });
  });
});
