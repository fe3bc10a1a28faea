// The rev2026-era server without a transport: methods, errors, agents from _meta, listen.
import { describe, expect, it } from 'vitest';
import { Rev2026Server, type Rev2026Response, type Notification, type RequestIo } from '../../../src/server/rev2026-07-28/dispatch.js';
import type { ServerRuntime } from '../../../src/server/options.js';
import { fakeRuntime } from '../support.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'spec', version: '1' },
};

function server(mode: 'local' | 'sprite' = 'local') {
  const fake = fakeRuntime(mode);
  const runtime = fake.runtime as unknown as { options: Record<string, unknown>; engine: Record<string, unknown> };
  const limits = {
    maxExecTimeoutMs: 7_200_000,
    maxYieldMs: 30_000,
    inlineLimitBytes: 16_384,
    previewBytes: 4_096,
    headBytes: 1_024,
    tailFileBytes: 1 << 20,
    spillCapBytes: 16 << 20,
    defaultWorkdir: undefined,
  };
  Object.assign(runtime.options, { version: '0.1.0', instructions: 'zodex remote execution tools.', annotations: 'all-read-only', limits });
  Object.assign(runtime.engine, { list: () => [], peek: () => undefined });
  const rev2026 = new Rev2026Server(fake.runtime as ServerRuntime, { maxAgents: 4, handleIdleMs: 60_000 });
  const notified: Notification[] = [];
  const io = (abort = new AbortController()): RequestIo => ({ signal: abort.signal, notify: (n) => void notified.push(n), peer: 'stdio' });
  const ask = (method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, via = io()) =>
    rev2026.handle({ id: 1, method, params: { ...params, _meta: { ...META, ...meta } } }, via) as Promise<
      Rev2026Response & { result?: Record<string, any>; error?: { code: number; message: string } }
    >;
  return { rev2026, ask, io, notified, fake };
}

describe('Rev2026Server', () => {
  it('answers server/discover and tools/list with resultType, serverInfo and cache hints', async () => {
    const { ask, rev2026 } = server();
    const discover = await ask('server/discover');
    expect(discover.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'zodex' } },
    });
    const list = await ask('tools/list');
    expect(list.result!.tools.map((tool: { name: string }) => tool.name)).toEqual(['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias']);
    expect(list.result!.ttlMs).toBe(300_000);
    rev2026.close();
  });

  it('answers other methods -32601, an unknown tool or bad arguments -32602, a missing envelope -32602', async () => {
    const { ask, rev2026 } = server('sprite');
    for (const method of ['ping', 'initialize', 'prompts/list']) expect((await ask(method)).error?.code).toBe(-32601);
    const unknown = await ask('tools/call', { name: 'set_agent_alias', arguments: {} });
    expect(unknown.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^UNKNOWN_TOOL: no tool is named "set_agent_alias"; the tools are exec_command, write_stdin, apply_patch$/),
    });
    expect((await ask('tools/call', { name: 'exec_command', arguments: null })).error?.code).toBe(-32602);
    const bare = (await rev2026.handle({ id: 2, method: 'tools/list' }, server().io())) as { error?: { code: number } } | undefined;
    expect(bare?.error?.code).toBe(-32602);
    rev2026.close();
  });

  it('shows a known secret in an unknown tool name as [REDACTED:NAME]', async () => {
    const { ask, rev2026, fake } = server('sprite');
    Object.assign(fake.runtime, { redact: (text: string) => text.split('secret-tool-token-0123').join('[REDACTED:ZODEX_AUTH_TOKEN]') });
    const unknown = await ask('tools/call', { name: 'x-secret-tool-token-0123', arguments: {} });
    expect(unknown.error?.message).toMatch(/^UNKNOWN_TOOL: no tool is named "x-\[REDACTED:ZODEX_AUTH_TOKEN\]";/);
    rev2026.close();
  });

  it('resolves one Agent ID per conversation id in _meta, and one for the fallback', async () => {
    const { ask, rev2026 } = server();
    const agentOf = async (meta: Record<string, unknown>) =>
      (await ask('tools/call', { name: 'set_agent_alias', arguments: { alias: 'x' } }, meta)).result!.structuredContent.agent_id;
    const a = await agentOf({ threadId: 'A' });
    expect(await agentOf({ threadId: 'A' })).toBe(a);
    const b = await agentOf({ threadId: 'B' });
    expect(b).not.toBe(a);
    const fallback = await agentOf({ 'claudecode/toolUseId': '1' });
    expect(await agentOf({ 'claudecode/toolUseId': '2' })).toBe(fallback);
    expect(new Set([a, b, fallback]).size).toBe(3);
    expect(rev2026.agents.size).toBe(3);
    rev2026.close();
  });

  it('acknowledges subscriptions/listen at once and ends it with a complete result at shutdown, or silently when cancelled', async () => {
    const { ask, io, rev2026, notified } = server();
    const open = ask('subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(notified).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 1 }, notifications: {} },
      },
    ]);
    const abort = new AbortController();
    const cancelled = ask('subscriptions/listen', {}, {}, io(abort));
    abort.abort();
    expect(await cancelled).toBeUndefined();
    rev2026.endSubscriptions();
    expect((await open)!.result).toMatchObject({ resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 1 } });
    rev2026.close();
  });
});
