// MCP over stdio: one conversation on stdin/stdout (newline-delimited JSON-RPC); stdout carries
// only protocol, diagnostics go to stderr. When stdin ends, stdout breaks, or SIGINT/SIGTERM
// arrives, every command is killed and the process exits (the SDK's transport does not notice
// stdin closing while a PTY is open, so we listen ourselves). Framing is our own
// (stdio-transport.ts): a bad or oversized line is answered, never fatal.

import { randomBytes } from 'node:crypto';
import type { Runtime } from '../server/runtime.js';
import { Conversation } from '../server/conversation.js';
import { createMcpServer } from '../server/server.js';
import { FramedStdioTransport } from './stdio-transport.js';

export async function serveStdio(runtime: Runtime): Promise<void> {
  const conversation = new Conversation(runtime, randomBytes(8).toString('hex'));
  const server = createMcpServer(runtime, conversation);
  const transport = new FramedStdioTransport(process.stdin, process.stdout, {
    maxMessageBytes: runtime.config.maxBodyBytes,
    flag: '--max-body-bytes',
    log: runtime.log,
  });

  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    if (why !== 'stdin closed') runtime.log(`stopping: ${why}`);
    const exit = () => process.exit(0);
    conversation.close();
    runtime.close().then(exit, exit);
  };

  process.stdin.on('end', () => stop('stdin closed'));
  process.stdin.on('close', () => stop('stdin closed'));
  process.stdout.on('error', () => stop('stdout closed'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => stop('SIGHUP'));
  transport.onclose = () => stop('transport closed');

  await server.connect(transport);
}
