// The one JSON-lines reader and versioned parser both local socket protocols use.

import { EventEmitter } from 'node:events';
import type net from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseVersionedLine, readLines } from '../../../src/features/shared/jsonlines.js';

function fakeSocket(): net.Socket & { feed(text: string): void } {
  const emitter = new EventEmitter() as EventEmitter & { destroyed: boolean; destroy(): void; feed(text: string): void };
  emitter.destroyed = false;
  emitter.destroy = () => (emitter.destroyed = true);
  emitter.feed = (text: string) => emitter.emit('data', Buffer.from(text));
  return emitter as unknown as net.Socket & { feed(text: string): void };
}

describe('readLines', () => {
  it('joins lines split across chunks and splits chunks holding several', () => {
    const socket = fakeSocket();
    const lines: string[] = [];
    readLines(socket, 100, (line) => lines.push(line));
    socket.feed('{"a"');
    socket.feed(':1}\n{"b":2}\n{"c"');
    socket.feed(':3}\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('refuses a line over the bound even when its newline arrives in the same chunk', () => {
    const socket = fakeSocket();
    const lines: string[] = [];
    let tooLong = 0;
    readLines(
      socket,
      8,
      (line) => lines.push(line),
      () => (tooLong += 1),
    );
    socket.feed('short\n0123456789\nlater\n');
    expect(lines).toEqual(['short']);
    expect(tooLong).toBe(1);
  });

  it('stops after stop(): the first line only', () => {
    const socket = fakeSocket();
    const lines: string[] = [];
    const stop = readLines(socket, 100, (line) => {
      lines.push(line);
      stop();
    });
    socket.feed('one\ntwo\n');
    expect(lines).toEqual(['one']);
  });
});

describe('parseVersionedLine', () => {
  const schema = z.strictObject({ version: z.literal(1), op: z.literal('x') });
  const fail = (code: string, message: string) => new Error(`${code}: ${message}`);
  const parse = (line: string) => parseVersionedLine(line, schema, 1, fail, (got) => `version ${got} is not spoken here`);

  it('answers the message, or names what is wrong', () => {
    expect(parse('{"version":1,"op":"x"}')).toEqual({ version: 1, op: 'x' });
    expect(() => parse('nope')).toThrow('BAD_REQUEST: the request is not one line of JSON');
    expect(() => parse('{"version":2,"op":"x"}')).toThrow('UNSUPPORTED_VERSION: version 2 is not spoken here');
    expect(() => parse('{"version":1,"op":"y"}')).toThrow(/^BAD_REQUEST: invalid request: op: /);
  });

  it('never echoes an unbounded version', () => {
    const error = (() => {
      try {
        parse(JSON.stringify({ version: 'v'.repeat(100_000), op: 'x' }));
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message.length).toBeLessThan(1_000);
  });
});
