// Issue 12: stdio framing. Bad lines get JSON-RPC errors (with the id when it can be read), a
// line over the size limit is discarded without killing anything, and no reply line is larger
// than a stock SDK client reads. Each test checks the server still answers and a session lives.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, requirement } from '../harness/fixtures.js';
import { RawStdio, type RawReply } from '../harness/raw-stdio.js';
import { ZODEXD } from '../harness/target.js';
import { structuredOf } from '../harness/zodex.js';

// A server with a command running in the background, whose handle the test polls at the end.
async function withSession(body: (raw: RawStdio) => Promise<void>, args: string[] = []): Promise<void> {
  const raw = new RawStdio(args);
  try {
    await raw.initialize();
    const started = await raw.call('bg', 'exec_command', { cmd: 'sleep 2; echo survived', workdir: '/', yield_time_ms: 100 });
    expect(started.status).toBe('running');
    await body(raw);
    expect((await raw.request('after', 'ping')).result).toEqual({});
    const end = await raw.call('poll', 'write_stdin', { session_handle: started.session_handle, yield_time_ms: 20_000 });
    expect(end).toMatchObject({ status: 'exited', exit_code: 0 });
    expect(String(end.output)).toContain('survived');
    expect(raw.child.exitCode).toBeNull();
  } finally {
    await raw.close();
  }
}

// Sends `line` and waits for the reply carrying `id` (or, for id null, the next new reply).
async function answer(raw: RawStdio, line: string, id: string | number | null): Promise<RawReply> {
  const from = raw.replies.length;
  await raw.write(`${line}\n`);
  return raw.reply((reply) => reply.error !== undefined && reply.id === id, 15_000, from);
}

requirement('stdio.parse-error', async () => {
  await withSession(async (raw) => {
    const truncated = await answer(raw, '{"jsonrpc":"2.0","id":41,"method":"tools/list"', 41);
    expect(truncated.error).toMatchObject({ code: -32700, message: expect.stringMatching(/^PARSE_ERROR: /) });
    const garbage = await answer(raw, 'this is not json', null);
    expect(garbage.error!.code).toBe(-32700);
  });
});

requirement('stdio.invalid-request', async () => {
  await withSession(async (raw) => {
    const cases: [string, string | number | null, RegExp][] = [
      ['{"jsonrpc":"1.0","id":51,"method":"ping"}', 51, /`jsonrpc`/],
      ['{"id":52,"method":"ping"}', 52, /`jsonrpc`/],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', null, /`id`/],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, /`id`/],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, /`id`/],
      ['{"jsonrpc":"2.0","id":true,"method":"ping"}', null, /`id`/],
      ['{"jsonrpc":"2.0","id":53,"method":"tools/list","params":"x"}', 53, /`params`/],
      ['{"jsonrpc":"2.0","id":54}', 54, /`method`/],
    ];
    for (const [line, id, pattern] of cases) {
      const reply = await answer(raw, line, id);
      expect(reply.error!.code, line).toBe(-32600);
      expect(reply.error!.message, line).toMatch(/^INVALID_REQUEST: /);
      expect(reply.error!.message, line).toMatch(pattern);
    }
  });
});

requirement('stdio.no-batches', async () => {
  await withSession(async (raw) => {
    for (const line of ['[{"jsonrpc":"2.0","id":61,"method":"ping"},{"jsonrpc":"2.0","id":62,"method":"ping"}]', '[]']) {
      const reply = await answer(raw, line, null);
      expect(reply.error!.code, line).toBe(-32600);
      expect(reply.error!.message, line).toMatch(/batch/);
    }
    expect(raw.replies.some((reply) => reply.id === 61 || reply.id === 62)).toBe(false);
  });
});

requirement('stdio.message-too-large', async () => {
  await withSession(async (raw) => {
    const patch = `*** Begin Patch\n*** Add File: big.txt\n${`+${'x'.repeat(1023)}\n`.repeat(17 * 1024)}*** End Patch`;
    const line = JSON.stringify({ jsonrpc: '2.0', id: 71, method: 'tools/call', params: { name: 'apply_patch', arguments: { workdir: '/tmp', patch } } });
    expect(Buffer.byteLength(line)).toBeGreaterThan(17 * 1024 * 1024);
    const reply = await answer(raw, line, 71);
    expect(reply.error!.code).toBe(-32600);
    expect(reply.error!.message).toMatch(/^MESSAGE_TOO_LARGE: .*16777216 bytes per line \(--max-body-bytes\)/);
    expect(reply.error!.message.length).toBeLessThan(1000);
  });
});

requirement('stdio.reply-fits-client', async () => {
  // A stock SDK client; the inline limit is raised so that 11 MB of output would go inline.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [ZODEXD, '--mode', 'sprite', '--inline-limit-bytes', '20000000'],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stock', version: '1' });
  let closed = false;
  transport.onclose = () => (closed = true);
  await client.connect(transport);
  try {
    const big = (await client.callTool(
      { name: 'exec_command', arguments: { cmd: 'head -c 11000000 /dev/zero | tr "\\0" a', workdir: '/', yield_time_ms: 60_000 } },
      undefined,
      { timeout: 90_000 },
    )) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(big.isError).toBe(true);
    expect(big.content[0]!.text).toMatch(/^REPLY_TOO_LARGE: /);
    const small = structuredOf<{ output: string }>(await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo still-here', workdir: '/' } }));
    expect(small.output).toContain('still-here');
    expect(closed).toBe(false);
  } finally {
    await client.close();
  }
});
