// Seed 003: the same tools on both transports, and a stdout that carries only the protocol.

import { spawn } from 'node:child_process';
import { expect, requirement } from '../harness/fixtures.js';
import { ZODEXD, connectHttp, startHttpServer, stopServer, resolveTarget } from '../harness/target.js';

requirement('transport.same-tools', async () => {
  const server = await startHttpServer([]);
  const { client: overHttp } = await connectHttp(server.url);
  const stdio = await resolveTarget('stdio').connect();
  try {
    const [viaHttp, viaStdio] = await Promise.all([overHttp.listTools(), stdio.client.listTools()]);
    expect(viaHttp.tools).toEqual(viaStdio.tools);
    expect(overHttp.getInstructions()).toBe(stdio.client.getInstructions());
  } finally {
    await overHttp.close();
    await stdio.close();
    await stopServer(server);
  }
});

requirement('stdio.stdout-protocol-only', async () => {
  const child = spawn(process.execPath, [ZODEXD, '--mode', 'local'], { stdio: ['pipe', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // a command that writes to its stdout and stderr, and a failing call the server may log
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'exec_command', arguments: { cmd: 'echo to-stdout; echo to-stderr >&2', workdir: '/' } },
  });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'write_stdin', arguments: { session_handle: 'nope' } } });
  send({ jsonrpc: '2.0', id: 4, method: 'no/such/method' });
  await expect.poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
  child.stdin.end();
  await new Promise((resolve) => child.on('exit', resolve));
  const lines = stdout.split('\n');
  expect(lines.pop()).toBe(''); // newline-terminated
  for (const line of lines) {
    const message = JSON.parse(line) as { jsonrpc: string };
    expect(message.jsonrpc).toBe('2.0');
  }
  expect(lines.map((line) => (JSON.parse(line) as { id?: number }).id).sort()).toEqual([1, 2, 3, 4]);
});
