// The client of the Swarm test (swarm.spec.ts), run in zodex-client:local on the stack's overlay
// network: it resolves the workspace's task (DNS round-robin: the service name is the task's own
// address), runs a command and polls it by handle, then starts a call that outlives the scale to 0
// and, once the test says the service is scaled (a file in /shared), sends a new request. Prints
// one JSON line per step on stdout.
import dns from 'node:dns/promises';
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [service, token] = process.argv.slice(2);
const say = (step, value) => console.log(JSON.stringify({ step, ...value }));
const { address } = await dns.lookup(service, { family: 4 });
const url = `http://${address}:7391/mcp`;
const headers = { authorization: `Bearer ${token}` };
const client = new Client({ name: 'swarm-client', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
say('resolved', { address });

const started = (
  await client.callTool({ name: 'exec_command', arguments: { cmd: 'sleep 1; echo polled-by-handle', workdir: '/workspace', yield_time_ms: 100 } })
).structuredContent;
say('started', { status: started.status, handle: typeof started.session_handle === 'string' });
let polled = started;
while (polled.status === 'running') {
  polled = (await client.callTool({ name: 'write_stdin', arguments: { session_handle: started.session_handle, yield_time_ms: 5000 } })).structuredContent;
}
say('polled', { status: polled.status, output: polled.output, exit_code: polled.exit_code });

const inFlight = client.callTool({
  name: 'exec_command',
  arguments: { cmd: 'sleep 6; echo survived-the-scale-down', workdir: '/workspace', yield_time_ms: 20000 },
});
say('in-flight', {});
while (!fs.existsSync('/shared/scaled')) await new Promise((resolve) => setTimeout(resolve, 50));
const refused = await fetch(url, {
  method: 'POST',
  headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } },
  }),
}).then(
  (response) => ({ status: response.status, retryAfter: response.headers.get('retry-after') }),
  (error) => ({ error: String(error.cause?.code ?? error) }),
);
say('new-request', refused);
const finished = (await inFlight).structuredContent;
say('finished', { status: finished.status, output: finished.output, exit_code: finished.exit_code });
await client.close().catch(() => undefined);
