// The transport floor for bench/roundtrip.mjs: an MCP "server" that does nothing but answer,
// over stdio or over HTTP (event-stream answers, as zodexd gives them), each tools/call after
// DELAY_MS (about what `true` takes in zodexd, so that both sides idle alike between calls).
// What zodex costs over HTTP beyond this is zodex's own; what this costs is node's HTTP and the
// client's.
// Usage: node bench/bare-mcp.mjs stdio|http [DELAY_MS]

import http from 'node:http';

const delayMs = Number(process.argv[3] ?? 3);
const RESULT = {
  content: [{ type: 'text', text: '{"output":"","status":"exited","exit_code":0,"termination_reason":"exit"}' }],
  structuredContent: { output: '', status: 'exited', exit_code: 0, termination_reason: 'exit' },
};
const INITIALIZE = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1' } };

// Calls `reply` with the answer to `message`, or never for a notification.
function answer(message, reply) {
  if (message.id === undefined) return false;
  const result = message.method === 'initialize' ? INITIALIZE : message.method === 'tools/call' ? RESULT : {};
  const send = () => reply(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
  if (message.method === 'tools/call') setTimeout(send, delayMs);
  else send();
  return true;
}

if (process.argv[2] === 'stdio') {
  let buffer = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      answer(message, (json) => process.stdout.write(`${json}\n`));
    }
  });
} else {
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' }).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': 'bare' };
      const replied = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')), (json) => {
        res.writeHead(200, headers);
        res.end(`event: message\ndata: ${json}\n\n`);
      });
      if (!replied) res.writeHead(202, headers).end();
    });
  });
  server.listen(0, '127.0.0.1', () => console.error(`serving over http on http://127.0.0.1:${server.address().port}/mcp`));
}
