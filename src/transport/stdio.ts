// MCP over stdio: one conversation on a byte stream pair (newline-delimited JSON-RPC); stdout
// carries only protocol, diagnostics go to stderr. The conversation ends when stdin ends, stdout
// breaks or the transport closes: then onEnd tells the caller (app/), which stops the process
// (the SDK's transport does not notice stdin closing while a PTY is open, so we listen ourselves).
// Framing is our own (stdio-transport.ts): a bad or oversized line is answered, never fatal.

import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { ConversationFactory, Serving } from './serving.js';
import { FramedStdioTransport } from './stdio-transport.js';

export interface StdioOptions {
  input: Readable;
  output: Writable;
  maxMessageBytes: number; // one line at most (--max-body-bytes)
  open: ConversationFactory;
  log: (line: string) => void;
  onEnd: (why: string) => void; // called once: 'stdin closed', 'stdout closed' or 'transport closed'
}

export async function serveStdio(options: StdioOptions): Promise<Serving> {
  const { input, output } = options;
  const conversation = options.open(randomBytes(8).toString('hex'));
  const transport = new FramedStdioTransport(input, output, { maxMessageBytes: options.maxMessageBytes, flag: '--max-body-bytes', log: options.log });

  let ended = false;
  const end = (why: string) => {
    if (ended) return;
    ended = true;
    options.onEnd(why);
  };
  input.on('end', () => end('stdin closed'));
  input.on('close', () => end('stdin closed'));
  output.on('error', () => end('stdout closed'));
  transport.onclose = () => end('transport closed');

  await conversation.connect(transport);
  let closing: Promise<void> | undefined;
  return {
    close() {
      ended = true; // closing the conversation closes the transport: no onEnd for that
      closing ??= conversation.close();
      return closing;
    },
  };
}
