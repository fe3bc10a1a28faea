// tools/call through the SDK Server's own wrapper (server/tools.ts serveTools): a request whose
// params the SDK refuses gets the SDK's answer and never reaches a tool, and every result shape
// zodex builds is one the SDK's result schema (which that wrapper applies) leaves unchanged.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ZodexError } from '../../src/errors.js';
import { Conversation } from '../../src/server/conversation.js';
import { errorResult } from '../../src/server/results.js';
import { serveTools } from '../../src/server/tools.js';
import { toExecResult } from '../../src/tools/exec-result.js';
import { fakeRuntime } from './support.js';

// stock: the SDK Server's wrapper around a bare handler (the reference for its answers).
async function served(handler: () => Promise<CallToolResult>, stock = false) {
  const server = new McpServer({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  if (stock) server.server.setRequestHandler(z.looseObject({ method: z.literal('tools/call') }), handler);
  else serveTools(server, [], handler);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const replies: JSONRPCMessage[] = [];
  client.onmessage = (message) => void replies.push(message);
  await server.connect(serverSide);
  await client.start();
  const call = async (params: unknown) => {
    const id = replies.length + 1;
    await client.send({ jsonrpc: '2.0', id, method: 'tools/call', params } as JSONRPCMessage);
    await expect.poll(() => replies.find((reply) => (reply as { id?: number }).id === id)).toBeDefined();
    return replies.find((reply) => (reply as { id?: number }).id === id) as { result?: unknown; error?: { code: number; message: string } };
  };
  return { call, close: () => server.close() };
}

describe('tools/call through the SDK Server wrapper', () => {
  it('answers params the SDK refuses exactly as the SDK Server does, and never runs the handler', async () => {
    let ran = 0;
    const ours = await served(async () => (ran++, { content: [] }));
    const stock = await served(async () => ({ content: [] }), true);
    for (const params of [{ name: 'x', arguments: [] }, { name: 7 }, { arguments: {} }, { name: 'x', arguments: null }]) {
      const reply = await ours.call(params);
      expect(reply.error?.code, JSON.stringify(params)).toBe(-32602);
      expect(reply.error?.message).toMatch(/Invalid tools\/call request: /);
      expect(reply.error).toEqual((await stock.call(params)).error);
    }
    expect(ran).toBe(0);
    for (const params of [
      { name: 'x', _meta: { progressToken: 3 } },
      { name: 'x', task: { ttl: 5 } },
    ]) {
      expect(await ours.call(params), JSON.stringify(params)).toEqual(await stock.call(params));
    }
    await ours.close();
    await stock.close();
  });

  it('builds results that the SDK result schema leaves unchanged (exec, text, error, with context)', async () => {
    const report = {
      status: 'exited' as const,
      summary: 'exited with code 0 after 0.0 s',
      output: 'hi\n',
      outputHead: 'h',
      outputOmitted: 'o',
      outputOffset: 3,
      cwd: '/',
      handle: undefined,
      exitCode: 0,
      signal: 9,
      terminationReason: 'exit' as const,
      spill: { file: '/f', chars: 3, lines: 1, truncated: false, tailFile: '/t', tailOffset: 1, error: 'e', removed: ['/old'] },
      elapsedMs: 1,
      waitingForInput: false,
    };
    const fake = fakeRuntime('local');
    const conversation = new Conversation(fake.runtime, 'c1');
    const results = [
      await conversation.invoke({ tool: 'exec_command', workdir: '/', summary: 'true' }, async () => ({
        kind: 'exec',
        result: toExecResult(report),
        sessionId: 's1',
      })),
      await conversation.invoke({ tool: 'apply_patch', workdir: '/', summary: 'p' }, async () => ({
        kind: 'text',
        text: 'done',
        isError: false,
        structured: { files: 1 },
      })),
      await conversation.invoke({ tool: 'exec_command', workdir: '/', summary: 'x' }, async () => Promise.reject(new ZodexError('WORKDIR_REQUIRED', 'no'))),
      errorResult(new Error('boom'), () => {}),
    ];
    for (const result of results) expect(CallToolResultSchema.parse(result)).toStrictEqual(result);
  });
});
