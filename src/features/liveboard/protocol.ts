// The control protocol spoken on each zodexd's unix socket (<stateDir>/run/<serverId>.sock), and
// its client. One request per connection: a single line of JSON ending in "\n"; the answer is one
// or more lines of JSON, then the server closes the connection.
//
//   -> {"version":1,"op":"input","sessionId":"s0123456789ab","chars":"y\n"}
//   <- {"ok":true}
//   -> {"version":1,"op":"kill","sessionId":"s0123456789ab"}
//   <- {"ok":true}
//   -> {"version":1,"op":"tail","sessionId":"s0123456789ab"}
//   <- {"ok":true,"event":"output","text":"<the recent output, up to 16 Ki characters>","replace":true}
//   <- {"ok":true,"event":"output","text":"<each new piece>"}      ("gap":true: pieces were dropped
//   <- {"ok":true,"event":"end","exitCode":0,"reason":"exit"}          because this reader fell behind)
//   any op, on failure:
//   <- {"ok":false,"error":{"code":"UNKNOWN_SESSION","message":"..."}}
//
// Text is decoded UTF-8 (clean output, ANSI removed). input and kill are recorded in the store as
// operator actions by the zodexd that owns the session; input records the character count only.

import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import type { ControlErrorCode } from '../../errors.js';
import { parseVersionedLine, readLines } from '../shared/jsonlines.js';
import { checkControlFolder } from './paths.js';

export const CONTROL_PROTOCOL_VERSION = 1;
export const MAX_CONTROL_LINE_BYTES = 256 * 1024; // a request, or one output event (16 Ki chars as JSON)
export const MAX_INPUT_CHARS = 4_096; // one operator input: a line or a paste, not a file
export const REQUEST_TIMEOUT_MS = 10_000; // a client that connects and says nothing; a server that never answers

const sessionId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a session id from the store');
const version = z.literal(CONTROL_PROTOCOL_VERSION);

export const controlRequestSchema = z.discriminatedUnion('op', [
  z.strictObject({ version, op: z.literal('tail'), sessionId }),
  z.strictObject({ version, op: z.literal('input'), sessionId, chars: z.string().min(1).max(MAX_INPUT_CHARS) }),
  z.strictObject({ version, op: z.literal('kill'), sessionId }),
]);

export type ControlRequest = z.infer<typeof controlRequestSchema>;

// Its codes, each with its meaning, are registered in errors.ts.
export type { ControlErrorCode };

export type ControlReply =
  | { ok: true; event?: undefined }
  | { ok: true; event: 'output'; text: string; replace?: true; gap?: true }
  | { ok: true; event: 'end'; exitCode: number | null; reason: string | null }
  | { ok: false; error: { code: ControlErrorCode; message: string } };

export class ControlRequestError extends Error {
  constructor(
    readonly code: ControlErrorCode,
    message: string,
  ) {
    super(message);
  }
}

// text of one line -> a valid request, or BAD_REQUEST / UNSUPPORTED_VERSION saying what is wrong.
export function parseControlRequest(line: string): ControlRequest {
  const fail = (code: ControlErrorCode, message: string) => new ControlRequestError(code, message);
  const unsupported = (got: string) => `control protocol version ${got} is not spoken here (this zodexd speaks ${CONTROL_PROTOCOL_VERSION})`;
  return parseVersionedLine(line, controlRequestSchema, CONTROL_PROTOCOL_VERSION, fail, unsupported);
}

function unreachable(socketPath: string, error: unknown): ControlReply {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'it has no control socket (it ended, or it is an older zodexd)'
      : code === 'ECONNREFUSED'
        ? 'nothing listens on its control socket (it ended)'
        : (error as Error).message;
  return { ok: false, error: { code: 'UNREACHABLE', message: `cannot reach the zodexd at ${socketPath}: ${why}` } };
}

// Opens a connection for `request`; every reply line goes to `onReply`, then `onClose` once.
// Returns a function that closes the connection early. The socket's folder is checked first:
// a Liveboard never talks to a socket in a folder someone else could have planted.
export function controlStream(socketPath: string, request: ControlRequest, onReply: (reply: ControlReply) => void, onClose: () => void): () => void {
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    onClose();
  };
  try {
    checkControlFolder(path.dirname(socketPath));
  } catch (error) {
    queueMicrotask(() => {
      onReply({ ok: false, error: { code: 'UNREACHABLE', message: (error as Error).message } });
      close();
    });
    return () => undefined;
  }
  const socket = net.connect(socketPath);
  let answered = false;
  socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
  readLines(socket, MAX_CONTROL_LINE_BYTES, (line) => {
    let reply: ControlReply;
    try {
      reply = JSON.parse(line) as ControlReply;
    } catch {
      socket.destroy();
      return;
    }
    answered = true;
    if (!closed) onReply(reply);
  });
  socket.on('error', (error) => {
    if (!answered && !closed) onReply(unreachable(socketPath, error));
    answered = true;
  });
  socket.on('close', close);
  return () => {
    socket.destroy();
    close();
  };
}

// A one-answer request (input, kill): the first reply line, or UNREACHABLE.
export function controlCall(socketPath: string, request: ControlRequest, timeoutMs = REQUEST_TIMEOUT_MS): Promise<ControlReply> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (reply: ControlReply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cancel();
      resolve(reply);
    };
    const cancel = controlStream(socketPath, request, settle, () =>
      settle({ ok: false, error: { code: 'UNREACHABLE', message: `the zodexd at ${socketPath} closed the connection without an answer` } }),
    );
    const timer = setTimeout(
      () => settle({ ok: false, error: { code: 'UNREACHABLE', message: `no answer from the zodexd at ${socketPath} within ${timeoutMs} ms` } }),
      timeoutMs,
    );
  });
}
