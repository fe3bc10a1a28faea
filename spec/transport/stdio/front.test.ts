// The stdio front (issue 15: the AI SDK's client gives a stdio server 1 s to answer server/discover):
// it answers a well-formed discover at once, holds every other frame in order, and serveStdio
// delivers what it held (partial line and stdin's end included) through the era router.

import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describe, expect, it } from 'vitest';
import { discoverResponse } from '../../../src/wire/rev2026-07-28/discover.js';
import { holdStdio } from '../../../src/transport/stdio/front.js';
import { serveStdio } from '../../../src/transport/stdio/serve.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' },
};
const discover = (id: number, meta: Record<string, unknown> = META) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'server/discover', params: { _meta: meta } })}\n`;
const INFO = { instructions: 'the instructions', version: '9.9.9' };
const tick = () => new Promise((resolve) => setImmediate(resolve));

function front() {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: string[] = [];
  const seenClients = new Set<string>();
  const held = holdStdio({ input, output, maxMessageBytes: 1024, discover: INFO, seenClients, log: (line) => lines.push(line) });
  const written = () => String(output.read() ?? '');
  return { input, output, lines, seenClients, held, written };
}

describe('holdStdio', () => {
  it('answers a modern server/discover at once, as the modern server would, and logs its client once', async () => {
    const { input, lines, seenClients, written } = front();
    input.write(discover(1));
    input.write(discover(2));
    await tick();
    expect(
      written()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([discoverResponse(INFO, 1), discoverResponse(INFO, 2)]);
    expect(lines).toEqual(['MCP 2026-07-28 request from "probe 1" ("server/discover"): serving it without a session']);
    expect([...seenClients]).toEqual(['"probe 1"']);
  });

  it('holds everything else, in order, with the partial line and the end of stdin', async () => {
    const { input, held, written } = front();
    input.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\nnot json\n');
    input.write(discover(3, { 'io.modelcontextprotocol/protocolVersion': '1999-01-01', 'io.modelcontextprotocol/clientCapabilities': {} }));
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: META }, extra: 1 })}\n{"jsonrpc":"2.0","id":5,`);
    input.end();
    input.resume();
    await tick();
    expect(written()).toBe(''); // an unsupported version and a stray key are the transport's to answer
    const { pending, ended, framer } = held.handOff();
    expect(pending.map((frame) => (frame.kind === 'line' ? frame.bytes.toString() : frame.kind))).toEqual([
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
      'not json',
      discover(3, { 'io.modelcontextprotocol/protocolVersion': '1999-01-01', 'io.modelcontextprotocol/clientCapabilities': {} }).trim(),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: META }, extra: 1 }),
    ]);
    expect(ended).toBe(true);
    expect(framer.buffered).toBe('{"jsonrpc":"2.0","id":5,'.length);
  });
});

describe('serveStdio with what the front held', () => {
  it('delivers the held frames first, then the rest of the partial line, then what stdin brings', async () => {
    const { input, output, held } = front();
    input.write('{"jsonrpc":"2.0","method":"notifications/a"}\n{"jsonrpc":"2.0","me');
    await tick();
    let transport: Transport | undefined;
    const received: unknown[] = [];
    const ends: string[] = [];
    const open = () => ({
      connect: async (connected: Transport) => {
        transport = connected;
        connected.onmessage = (message) => received.push(message);
        await connected.start();
      },
      close: async () => {},
    });
    await serveStdio({ input, output, maxMessageBytes: 1024, open, log: () => {}, onEnd: (why) => ends.push(why), held: held.handOff() });
    expect(transport).toBeDefined();
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'notifications/a' }]);
    input.write('thod":"notifications/b"}\n{"jsonrpc":"2.0","method":"notifications/c"}\n');
    await tick();
    expect(received).toEqual([
      { jsonrpc: '2.0', method: 'notifications/a' },
      { jsonrpc: '2.0', method: 'notifications/b' },
      { jsonrpc: '2.0', method: 'notifications/c' },
    ]);
    input.end();
    await tick();
    expect(ends).toEqual(['stdin closed']);
  });

  it('reports an end of stdin that the front saw', async () => {
    const { input, output, held } = front();
    input.end('{"jsonrpc":"2.0","method":"notifications/a"}\n');
    input.resume();
    await tick();
    const received: unknown[] = [];
    const ends: string[] = [];
    const open = () => ({
      connect: async (connected: Transport) => {
        connected.onmessage = (message) => received.push(message);
        await connected.start();
      },
      close: async () => {},
    });
    await serveStdio({ input, output, maxMessageBytes: 1024, open, log: () => {}, onEnd: (why) => ends.push(why), held: held.handOff() });
    expect(received).toEqual([{ jsonrpc: '2.0', method: 'notifications/a' }]);
    await tick();
    expect(ends).toEqual(['stdin closed']);
  });
});
