// The SDK Transport over a byte stream pair, with our own framing both ways. Read: bytes ->
// LineFramer -> classifyFrame -> onmessage, or an error reply written straight back (the server
// keeps serving). Write: a message whose line a stock SDK client could not read is replaced.

import type { Readable, Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineFramer, type Frame } from './framing.js';
import { classifyFrame, errorReply } from './jsonrpc.js';

// The SDK's stdio client drops the connection once its read buffer passes 10 MiB; that buffer can
// hold a whole line plus the next pipe read (64 KiB), so a reply line stays below the difference.
export const MAX_REPLY_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE - 64 * 1024;

export interface StdioTransportOptions {
  maxMessageBytes: number;
  flag: string; // the flag that sets maxMessageBytes, named in the error
  maxReplyBytes?: number;
  log?: (line: string) => void;
  framer?: LineFramer; // continue a framer that already read from input (the stdio front's)
}

export class FramedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly framer: LineFramer;
  private readonly maxReply: number;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: StdioTransportOptions,
  ) {
    this.framer = options.framer ?? new LineFramer(options.maxMessageBytes);
    this.maxReply = options.maxReplyBytes ?? MAX_REPLY_LINE_BYTES;
  }

  private readonly ondata = (chunk: Buffer | string) => this.deliver(this.framer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));

  // Frames read from input, as they arrive or as the stdio front held them.
  deliver(frames: Frame[]): void {
    for (const frame of frames) {
      const classified = classifyFrame(frame, this.options.maxMessageBytes, this.options.flag);
      if (classified.kind === 'reply') {
        this.options.log?.(`stdio: answered a bad message with ${classified.reply.error.data.code}`);
        void this.send(classified.reply as unknown as JSONRPCMessage);
      } else if (classified.kind === 'message') {
        try {
          this.onmessage?.(classified.message);
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
  }

  private readonly onreaderror = (error: Error) => this.onerror?.(error);

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.onreaderror);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.ondata);
    this.input.off('error', this.onreaderror);
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const line = this.fitted(message);
    if (line === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(line)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  // The line to write for `message`: itself, or what replaces it when it is too long to be read.
  private fitted(message: JSONRPCMessage): string | undefined {
    const line = `${JSON.stringify(message)}\n`;
    const size = Buffer.byteLength(line);
    if (size <= this.maxReply) return line;
    const fields = message as { id?: unknown; result?: { content?: unknown } };
    if (!('id' in message) || fields.id === undefined || !('result' in message || 'error' in message)) {
      this.options.log?.(`stdio: dropped an outgoing ${'method' in message ? message.method : 'message'} of ${size} bytes (over ${this.maxReply})`);
      return undefined;
    }
    const id = fields.id as string | number;
    const why = `the reply was ${size} bytes, more than the ${this.maxReply} bytes a stdio MCP client reads as one line, so it was not sent`;
    this.options.log?.(`stdio: ${why}`);
    if (Array.isArray(fields.result?.content)) {
      const text = `REPLY_TOO_LARGE: ${why}. Ask for less at once: e.g. redirect a command's output to a file and read it in parts (head, sed -n, grep).`;
      return `${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } })}\n`;
    }
    return `${JSON.stringify(errorReply(id, -32603, 'REPLY_TOO_LARGE', `${why}; ask for less at once`))}\n`;
  }
}
