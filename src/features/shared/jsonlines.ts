// JSON lines over a local socket, shared by the publisher's and the control socket's protocols:
// each message is one line of JSON ending in "\n", bounded in bytes, with a `version` checked
// before the zod schema. Flow: readLines(socket) -> line -> parseVersionedLine(line, schema).

import type net from 'node:net';
import type { z } from 'zod';
import { clipText } from '../../errors.js';

// Calls `onLine` for each "\n"-terminated line the socket sends, until the returned stop() is
// called; a line longer than `maxBytes` goes to `onTooLong` instead (default: destroy the socket).
export function readLines(
  socket: net.Socket,
  maxBytes: number,
  onLine: (line: string) => void,
  onTooLong: () => void = () => socket.destroy(new Error(`a line longer than ${maxBytes} bytes`)),
): () => void {
  let pending: Buffer[] = [];
  let size = 0;
  let stopped = false;
  const onData = (chunk: Buffer) => {
    let start = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, start)) {
      if (size + at - start > maxBytes) return tooLong();
      pending.push(chunk.subarray(start, at));
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      size = 0;
      start = at + 1;
      if (socket.destroyed || stopped) return;
      onLine(line);
      if (stopped) return;
    }
    const rest = chunk.subarray(start);
    size += rest.length;
    if (size > maxBytes) tooLong();
    else if (rest.length > 0) pending.push(rest);
  };
  const stop = () => {
    stopped = true;
    socket.off('data', onData);
  };
  const tooLong = () => {
    stop();
    onTooLong();
  };
  socket.on('data', onData);
  return stop;
}

export type LineProblem = 'BAD_REQUEST' | 'UNSUPPORTED_VERSION';

// One line -> a valid message of `schema`, or fail(BAD_REQUEST | UNSUPPORTED_VERSION, why);
// `unsupported` words the version refusal from the (quoted, bounded) version the line gave.
export function parseVersionedLine<T>(
  line: string,
  schema: z.ZodType<T>,
  version: number,
  fail: (code: LineProblem, message: string) => Error,
  unsupported: (got: string) => string,
): T {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw fail('BAD_REQUEST', 'the request is not one line of JSON');
  }
  if (json && typeof json === 'object' && 'version' in json && json.version !== version) {
    throw fail('UNSUPPORTED_VERSION', unsupported(clipText(JSON.stringify(json.version) ?? String(json.version))));
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ');
    throw fail('BAD_REQUEST', `invalid request: ${issues}`);
  }
  return parsed.data;
}
