// A scripted MCP client, standing in for an agent in a container: it reaches the zodexd sandbox
// over HTTP only, lists the tools, runs commands, applies a patch, prints a transcript and exits
// 0 when every step did what it should (1 otherwise).
//
//   ZODEX_URL=http://zodexd:7391/mcp ZODEX_AUTH_TOKEN=... node agent.mjs

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.env.ZODEX_URL ?? 'http://zodexd:7391/mcp';
const token = process.env.ZODEX_AUTH_TOKEN;
const workdir = process.env.ZODEX_WORKDIR ?? '/workspace';
const say = (line) => console.log(`agent: ${line}`);
let failures = 0;
const check = (ok, what) => {
  if (!ok) failures++;
  say(`${ok ? 'ok' : 'FAILED'}: ${what}`);
};

const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: token ? { authorization: `Bearer ${token}` } : {} } });
const client = new Client({ name: 'zodex-compose-agent', version: '1.0.0' });
await client.connect(transport);
say(`connected to ${url}: ${client.getInstructions()?.split('.')[0]}`);

const { tools } = await client.listTools();
say(`tools: ${tools.map((tool) => tool.name).join(', ')}`);
check(
  ['apply_patch', 'exec_command', 'write_stdin'].every((name) => tools.some((tool) => tool.name === name)),
  'the three tools are listed',
);

const exec = async (cmd, extra = {}) => (await client.callTool({ name: 'exec_command', arguments: { cmd, workdir, ...extra } })).structuredContent;
const where = await exec('echo "$(id -un) on $(hostname) in $(pwd)"');
say(`exec_command: ${where.summary}: ${where.output.trim()}`);
check(where.exit_code === 0, 'a command runs in the sandbox');

const patched = await client.callTool({
  name: 'apply_patch',
  arguments: { workdir, patch: '*** Begin Patch\n*** Add File: hello.txt\n+hello from the agent\n*** End Patch\n' },
});
say(`apply_patch: ${patched.content[0].text.trim().replace(/\n/g, ' | ')}`);
check(!patched.isError, 'a patch applies');

const read = await exec('cat hello.txt && rm hello.txt');
say(`exec_command: ${read.output.trim()}`);
check(read.output === 'hello from the agent\n', 'the patched file holds what the patch wrote');

// A program waiting for input never exits: a short yield returns its handle at once, instead
// of waiting out the 10 s default.
const session = await exec('read name; echo "hello, $name"', { yield_time_ms: 500 });
say(`exec_command: ${session.summary.replace(session.session_handle, 'H')}`);
const answer = (await client.callTool({ name: 'write_stdin', arguments: { session_handle: session.session_handle, chars: 'compose\n', yield_time_ms: 5000 } }))
  .structuredContent;
say(`write_stdin: ${answer.summary}: ${answer.output.trim().split('\n').pop()}`);
check(answer.output.includes('hello, compose'), 'an interactive session answers');

await transport.terminateSession().catch(() => {});
await client.close();
say(failures === 0 ? 'transcript complete: all steps passed' : `transcript complete: ${failures} step(s) failed`);
process.exit(failures === 0 ? 0 : 1);
