// MCP over stdio: one conversation on a byte stream pair (newline-delimited JSON-RPC); stdout
// carries only protocol, diagnostics go to stderr. The conversation ends when stdin ends, stdout
// breaks or the transport closes: then onEnd tells the caller (app/), which stops the process
// (the SDK's transport does not notice stdin closing while a PTY is open, so we listen ourselves).
// Framing is our own (transport.ts): a bad or oversized line is answered, never fatal.
// Both protocol eras: eras.ts routes each message to the conversation's SDK server (2025)
// or the 2026-07-28 server. `held`: the stdio front's frames go first (front.ts).

import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import type { Rev2026Server } from '../../server/rev2026-07-28/dispatch.js';
import { StdioEraRouter } from './eras.js';
import type { ConversationFactory, Serving } from '../serving.js';
import type { HeldInput } from './front.js';
import { FramedStdioTransport } from './transport.js';

export interface StdioOptions {
  input: Readable;
  output: Writable;
  maxMessageBytes: number; // one line at most (--max-body-bytes)
  open: ConversationFactory;
  rev2026?: Rev2026Server; // serves the 2026-07-28 requests; without it, 2025 only
  log: (line: string) => void;
  onEnd: (why: string) => void; // called once: 'stdin closed', 'stdout closed' or 'transport closed'
  held?: HeldInput; // what the stdio front read before this transport existed (input is paused)
}

export async function serveStdio(options: StdioOptions): Promise<Serving> {
  const { input, output } = options;
  const conversation = options.open(randomBytes(8).toString('hex'));
  const { held } = options;
  const transport = new FramedStdioTransport(input, output, {
    maxMessageBytes: options.maxMessageBytes,
    flag: '--max-body-bytes',
    log: options.log,
    ...(held ? { framer: held.framer } : {}),
  });

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
  // connect() installed the SDK's handler; every message now passes the era router first.
  const { rev2026 } = options;
  if (rev2026) {
    const rev2025 = transport.onmessage!;
    const router = new StdioEraRouter(rev2026, (message) => transport.send(message), rev2025);
    transport.onmessage = (message) => router.route(message);
  }
  if (held) {
    // In arrival order, after the router: then what stdin holds since, or its end.
    transport.deliver(held.pending);
    // An end read by the front comes a turn later, as the stream's own 'end' event would.
    if (held.broken) end('stdout closed');
    else if (held.ended) setImmediate(() => end('stdin closed'));
    else input.resume();
  }
  let closing: Promise<void> | undefined;
  return {
    close() {
      ended = true; // closing the conversation closes the transport: no onEnd for that
      closing ??= conversation.close().finally(() => rev2026?.close());
      return closing;
    },
  };
}
