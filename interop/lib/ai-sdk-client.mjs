// @ts-check
// Run by test/ai-sdk.test.mjs under Node 22 (the AI SDK's MCP client needs it): connects the AI
// SDK's MCP client (@ai-sdk/mcp) to zodexd over HTTP (argv: URL) or stdio (argv: command...),
// records every method it sends, lists the tools, runs exec_command and prints one JSON line.

import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const [target, ...rest] = process.argv.slice(2);
/** @type {string[]} */
const sent = [];
/** @type {any} */
const transport = target.startsWith('http')
  ? { type: 'http', url: target }
  : new StdioMCPTransport({ command: target, args: rest, env: /** @type {Record<string, string>} */ (process.env) });
if (typeof transport.send === 'function') {
  const send = transport.send.bind(transport);
  transport.send = (/** @type {any} */ message) => (sent.push(message.method ?? 'response'), send(message));
}
const client = await createMCPClient({ transport, name: 'ai-sdk-interop' });
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'exec_command', arguments: { cmd: `echo ${process.env.MARKER}`, workdir: '/' } });
console.log(
  JSON.stringify({
    era: /** @type {any} */ (client).protocolEra,
    version: /** @type {any} */ (client).protocolVersion,
    sent,
    tools: tools.map((tool) => tool.name),
    result,
  }),
);
await client.close();
