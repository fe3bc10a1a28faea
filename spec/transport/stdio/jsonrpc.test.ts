import fc from 'fast-check';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import { LineFramer } from '../../../src/transport/stdio/framing.js';
import { classifyFrame, idFromEnd, idFromStart, INVALID_REQUEST, PARSE_ERROR } from '../../../src/transport/stdio/jsonrpc.js';

const line = (text: string) => classifyFrame({ kind: 'line', bytes: Buffer.from(text) }, 1024, '--max-body-bytes');

function reply(text: string) {
  const classified = line(text);
  if (classified.kind !== 'reply') throw new Error(`expected a reply for ${text}, got ${classified.kind}`);
  return classified.reply;
}

describe('classifyFrame', () => {
  it('passes requests, notifications and responses through', () => {
    for (const text of [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":3,"result":{}}',
      '{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}',
    ]) {
      expect(line(text).kind, text).toBe('message');
    }
  });

  it('ignores blank lines', () => {
    expect(line('').kind).toBe('blank');
    expect(line('  \t').kind).toBe('blank');
  });

  it('answers text that is not JSON with -32700, with the id when the start shows it', () => {
    expect(reply('{"jsonrpc":"2.0","id":5,"method":"ping"')).toMatchObject({ id: 5, error: { code: PARSE_ERROR } });
    expect(reply('hello')).toMatchObject({ id: null, error: { code: PARSE_ERROR } });
    expect(reply('hello').error.message).toMatch(/^PARSE_ERROR: the line is not valid JSON/);
  });

  it('answers each invalid request with -32600 naming the field, with the id when it can be read', () => {
    const cases: [string, string | number | null, RegExp][] = [
      ['{"jsonrpc":"1.0","id":1,"method":"ping"}', 1, /`jsonrpc` must be the string "2.0"/],
      ['{"id":2,"method":"ping"}', 2, /`jsonrpc` .*missing/],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', null, /`id` must be a string or an integer, not null/],
      ['{"jsonrpc":"2.0","id":{},"method":"ping"}', null, /`id` .*an object/],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, /`id` .*fraction 1.5/],
      ['{"jsonrpc":"2.0","id":true,"method":"ping"}', null, /`id` .*boolean true/],
      ['{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}', 3, /`params` must be a JSON object/],
      ['{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[1]}', 4, /`params` .*an array/],
      ['{"jsonrpc":"2.0","id":6}', 6, /no `method`/],
      ['{"jsonrpc":"2.0","id":7,"method":5}', 7, /`method` must be a string/],
      ['[{"jsonrpc":"2.0","id":8,"method":"ping"}]', null, /batches/],
      ['[]', null, /empty batch/],
      ['42', null, /must be a JSON object/],
      ['{"jsonrpc":"2.0","id":9,"method":"ping","extra":1}', 9, /not a JSON-RPC 2.0 message/],
    ];
    for (const [text, id, pattern] of cases) {
      const answer = reply(text);
      expect(answer.error.code, text).toBe(INVALID_REQUEST);
      expect(answer.id, text).toBe(id);
      expect(answer.error.message, text).toMatch(pattern);
      expect(answer.error.message, text).toMatch(/^INVALID_REQUEST: /);
    }
  });

  it('answers an oversized line naming the limit and the flag, with an id from its start or its end', () => {
    const framer = new LineFramer(64);
    const [first, second] = framer.push(
      Buffer.from(
        `{"jsonrpc":"2.0","id":11,"method":"x","params":{"p":"${'a'.repeat(9000)}"}}\n{"method":"x","params":{"p":"${'b'.repeat(9000)}"},"jsonrpc":"2.0","id":"k"}\n`,
      ),
    );
    for (const [frame, id] of [
      [first!, 11],
      [second!, 'k'],
    ] as const) {
      const classified = classifyFrame(frame, 64, '--max-body-bytes');
      expect(classified.kind === 'reply' && classified.reply).toMatchObject({ id, error: { code: INVALID_REQUEST, data: { code: 'MESSAGE_TOO_LARGE' } } });
      expect(classified.kind === 'reply' && classified.reply.error.message).toMatch(/limit of 64 bytes per line \(--max-body-bytes\)/);
    }
  });

  it('never quotes more than ~200 characters of the input', () => {
    const answer = reply(`{"jsonrpc":"2.0","id":1,"method":"x","params":"${'z'.repeat(100_000)}"}`);
    expect(answer.error.message.length).toBeLessThan(600);
    expect(reply(`{"jsonrpc":"${'v'.repeat(100_000)}"}`).error.message.length).toBeLessThan(600);
  });

  it('never throws on arbitrary text, and every answer is an error or a message', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify({ jsonrpc: '2.0', ...(typeof v === 'object' && v && !Array.isArray(v) ? v : { id: v }) })),
        ),
        (text) => {
          const classified = line(text);
          expect(['message', 'reply', 'blank']).toContain(classified.kind);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('id recovery', () => {
  it('reads a leading id after simple members only', () => {
    expect(idFromStart('{"jsonrpc":"2.0","id":7,"params":{')).toBe(7);
    expect(idFromStart('{"id":"abc"')).toBe('abc');
    expect(idFromStart('{"params":{"id":3},"id":4')).toBe(null);
    expect(idFromStart('not json')).toBe(null);
  });

  it('reads a trailing id only when it closes the top-level object', () => {
    expect(idFromEnd('aaaa"},"jsonrpc":"2.0","id":12}')).toBe(12);
    expect(idFromEnd('aaaa","id":12}}')).toBe(null);
    expect(idFromEnd('\\",\\"id\\":12}"}')).toBe(null);
  });
});

describe('the plain-request shortcut', () => {
  it('passes a plain request without the SDK union parse, and only what that parse accepts', () => {
    const union = vi.spyOn(JSONRPCMessageSchema, 'safeParse');
    try {
      expect(line('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"exec_command","arguments":{"cmd":"true"}}}').kind).toBe('message');
      expect(union).not.toHaveBeenCalled();
      expect(line('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":{}}}}').kind).toBe('reply');
      expect(line('{"jsonrpc":"2.0","id":5,"method":"ping","extra":1}').kind).toBe('reply');
      expect(union).toHaveBeenCalledTimes(2);
    } finally {
      union.mockRestore();
    }
    const value = fc.oneof(
      fc.string({ maxLength: 3 }),
      fc.integer(),
      fc.double(),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 1 }),
      fc.dictionary(
        fc.constantFrom('_meta', 'name', 'progressToken'),
        fc.oneof(fc.integer(), fc.string({ maxLength: 2 }), fc.dictionary(fc.constantFrom('progressToken', 'x'), fc.oneof(fc.integer(), fc.constant({})))),
      ),
    );
    const message = fc.record(
      { jsonrpc: fc.oneof(fc.constant('2.0'), value), id: value, method: value, params: value, result: value, extra: value },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(message, (m) => {
        if (line(JSON.stringify(m)).kind === 'message') expect(JSONRPCMessageSchema.safeParse(m).success, JSON.stringify(m)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
