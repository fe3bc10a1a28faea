// One stdio frame -> a JSON-RPC message for the SDK, or the error reply the client gets instead:
// -32700 for text that is not JSON, -32600 for JSON that is not one MCP JSON-RPC message (batches
// included) and for a line over the size limit. Replies carry the id whenever it can be read.

import { JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { clipText as clip } from '../../errors.js';
import type { Frame } from './framing.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export interface ErrorReply {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: { code: number; message: string; data: { code: string } };
}

export type Classified = { kind: 'message'; message: JSONRPCMessage } | { kind: 'reply'; reply: ErrorReply } | { kind: 'blank' };

export function errorReply(id: RequestId | null, code: number, word: string, message: string): ErrorReply {
  return { jsonrpc: '2.0', id, error: { code, message: `${word}: ${message}`, data: { code: word } } };
}

export function classifyFrame(frame: Frame, limit: number, flag: string): Classified {
  if (frame.kind === 'oversize') {
    const id = idFromStart(frame.head.toString('utf8')) ?? idFromEnd(frame.tail.toString('utf8'));
    const message = `a message of ${frame.size} bytes exceeds this server's limit of ${limit} bytes per line (${flag}); it was discarded unread. Send less per call (split a patch into several apply_patch calls) or start zodexd with a larger ${flag}`;
    return { kind: 'reply', reply: errorReply(id, INVALID_REQUEST, 'MESSAGE_TOO_LARGE', message) };
  }
  const text = frame.bytes.toString('utf8');
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = clip(error instanceof Error ? error.message : String(error));
    const message = `the line is not valid JSON (${why}); send exactly one JSON-RPC 2.0 message per line, terminated by "\\n"`;
    return { kind: 'reply', reply: errorReply(idFromStart(text), PARSE_ERROR, 'PARSE_ERROR', message) };
  }
  const problem = invalidReason(value);
  if (problem !== undefined) return { kind: 'reply', reply: errorReply(readableId(value), INVALID_REQUEST, 'INVALID_REQUEST', problem) };
  return { kind: 'message', message: value as JSONRPCMessage };
}

// Why a parsed value is not one JSON-RPC 2.0 message as MCP allows it, or undefined.
export function invalidReason(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    return value.length === 0
      ? 'an empty batch ([]) is not a message; MCP does not support JSON-RPC batches: send each message on its own line'
      : 'MCP does not support JSON-RPC batches (a JSON array); send each message on its own line';
  }
  if (value === null || typeof value !== 'object') return `a message must be a JSON object, not ${describe(value)}`;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return `\`jsonrpc\` must be the string "2.0", not ${describe(message.jsonrpc)}`;
  if ('id' in message && !isRequestId(message.id)) return `\`id\` must be a string or an integer, not ${describe(message.id)}`;
  if ('method' in message && typeof message.method !== 'string') return `\`method\` must be a string, not ${describe(message.method)}`;
  if ('params' in message && (message.params === null || typeof message.params !== 'object' || Array.isArray(message.params))) {
    return `\`params\` must be a JSON object (MCP uses named parameters), not ${describe(message.params)}`;
  }
  if (!('method' in message) && !('result' in message) && !('error' in message)) {
    return 'the message has no `method` (a request or notification needs one; a response needs `result` or `error`)';
  }
  if (!('method' in message) && !('id' in message) && 'result' in message) return 'a response needs the `id` of the request it answers';
  if (isPlainRequest(message)) return undefined;
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `\`${issue.path.join('.')}\`: ` : '';
  return clip(`not a JSON-RPC 2.0 message: ${where}${issue?.message ?? 'unrecognised shape'}`);
}

// The members of a JSON-RPC request as the SDK's strict schema allows them.
export const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

// After the checks above, a request with no other member and no params._meta is one the SDK's
// strict JSONRPCRequestSchema accepts (params is loose, only its _meta has a shape): the union
// parse, the costliest step of a frame, is left to every other message.
function isPlainRequest(message: Record<string, unknown>): boolean {
  if (!('id' in message) || !('method' in message)) return false;
  for (const key of Object.keys(message)) if (!REQUEST_KEYS.has(key)) return false;
  return message.params === undefined || !Object.hasOwn(message.params as object, '_meta');
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

function readableId(value: unknown): RequestId | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>).id;
  return isRequestId(id) ? clipId(id) : null;
}

// The id of a message whose text cannot be parsed whole: read from its first top-level members,
// as long as those before it have simple values ({"jsonrpc":"2.0","id":7,... ).
export function idFromStart(text: string): RequestId | null {
  const simple = String.raw`"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null`;
  const member = new RegExp(String.raw`\s*("(?:[^"\\]|\\.)*")\s*:\s*(${simple})\s*(?:,|\}|$)`, 'y');
  const open = /^\s*\{/.exec(text);
  if (!open) return null;
  member.lastIndex = open[0].length;
  for (let match = member.exec(text); match; match = member.exec(text)) {
    if (match[1] === '"id"') return idOf(match[2]!);
  }
  return null;
}

// The id when it is the object's last member, as the SDK's clients write it (..."id":7}).
export function idFromEnd(text: string): RequestId | null {
  const match = /,\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/.exec(text);
  return match ? idOf(match[1]!) : null;
}

function idOf(literal: string): RequestId | null {
  try {
    const id: unknown = JSON.parse(literal);
    return isRequestId(id) ? clipId(id) : null;
  } catch {
    return null;
  }
}

// An id is echoed whole unless it is absurdly long; a clipped one cannot match, but stays small.
function clipId(id: RequestId): RequestId {
  return typeof id === 'string' && id.length > 1024 ? id.slice(0, 1024) : id;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the fraction ${clip(String(value))}`;
  return `${typeof value} ${clip(JSON.stringify(value))}`;
}
