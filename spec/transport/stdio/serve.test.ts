// serveStdio's contract with app/: it opens one conversation from the factory on the stream
// pair, tells onEnd once why the conversation ended (stdin's end, a broken stdout), and its
// close() closes the conversation without reporting an end of its own.

import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { serveStdio } from '../../../src/transport/stdio/serve.js';

function fakeFactory() {
  const opened: string[] = [];
  const closed: string[] = [];
  let connected: Transport | undefined;
  const open = (id: string) => {
    opened.push(id);
    return {
      connect: async (transport: Transport) => {
        connected = transport;
        await transport.start();
      },
      close: async () => {
        closed.push(id);
        await connected?.close();
      },
    };
  };
  return { open, opened, closed, transport: () => connected };
}

async function serve() {
  const input = new PassThrough();
  const output = new PassThrough();
  const factory = fakeFactory();
  const ends: string[] = [];
  const serving = await serveStdio({ input, output, maxMessageBytes: 1024, open: factory.open, log: () => {}, onEnd: (why) => ends.push(why) });
  return { input, output, factory, ends, serving };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('serveStdio', () => {
  it('opens one conversation and hands it each line as a message', async () => {
    const { input, factory } = await serve();
    expect(factory.opened).toHaveLength(1);
    expect(factory.opened[0]).toMatch(/^[0-9a-f]{16}$/);
    const received: unknown[] = [];
    factory.transport()!.onmessage = (message) => received.push(message);
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await tick();
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'notifications/initialized' }]);
  });

  it('reports the end of stdin once, however many ways it ends', async () => {
    const { input, ends } = await serve();
    input.end();
    input.resume();
    await tick();
    input.destroy();
    await tick();
    expect(ends).toEqual(['stdin closed']);
  });

  it('reports a broken stdout', async () => {
    const { output, ends } = await serve();
    output.emit('error', new Error('EPIPE'));
    await tick();
    expect(ends).toEqual(['stdout closed']);
  });

  it('close() closes the conversation once and reports no end of its own', async () => {
    const { serving, factory, ends } = await serve();
    await Promise.all([serving.close('SIGTERM'), serving.close('SIGINT')]);
    expect(factory.closed).toEqual(factory.opened);
    expect(ends).toEqual([]);
  });
});
