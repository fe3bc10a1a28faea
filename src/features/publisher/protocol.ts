// The publisher's socket protocol: one connection carries one request and one response, each a
// single line of JSON ending in "\n" (at most MAX_LINE_BYTES). Every message has `version: 1`
// and the request's `id` (the response echoes it; null when the request could not be read).
//
//   -> {"version":1,"id":"r1","op":"status"}
//   <- {"version":1,"id":"r1","ok":true,"result":{"mode":"publish-pr", ...}}
//   -> {"version":1,"id":"r2","op":"publish-pr","repoPath":"/w/app","branch":"fix","commit":"<sha>","title":"Fix"}
//   <- {"version":1,"id":"r2","ok":false,"error":{"code":"DIRTY_WORKTREE","message":"..."}}
//
// Ops: status (answered to any client of the socket, the publisher's own user included: it holds
// no secret); publish-pr (push the checkout's branch, open a PR); push (direct mode: push the
// checkout's commit to `target`, default the same branch name).

import type net from 'node:net';
import { z } from 'zod';
import { WRITE_MODES } from '../../bounds/modes.js';
import { parseVersionedLine, readLines } from '../shared/jsonlines.js';
import { PublisherError } from './errors.js';

export const PROTOCOL_VERSION = 1;
export const MAX_LINE_BYTES = 1024 * 1024; // a PR body is at most 65,536 characters on GitHub

const sha = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'must be a full hexadecimal commit id');
const common = {
  version: z.literal(PROTOCOL_VERSION),
  id: z.string().min(1).max(128),
};
const fromCheckout = {
  agentId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  repoPath: z.string().min(1).max(4096),
  branch: z.string().min(1).max(255),
  commit: sha,
  remote: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/)
    .optional(),
  // The write mode zodexd runs the agent's commands in (its ZODEX_WRITE_MODE): the publisher
  // refuses the request when its own differs. Absent: not sent from a zodexd session.
  writeMode: z.enum(WRITE_MODES).optional(),
};

export const statusRequestSchema = z.strictObject({ ...common, op: z.literal('status') });
export const publishPrRequestSchema = z.strictObject({
  ...common,
  op: z.literal('publish-pr'),
  ...fromCheckout,
  base: z.string().min(1).max(255).optional(),
  title: z.string().min(1).max(1024),
  body: z.string().max(MAX_LINE_BYTES).optional(),
  draft: z.boolean().optional(),
});
export const pushRequestSchema = z.strictObject({
  ...common,
  op: z.literal('push'),
  ...fromCheckout,
  target: z.string().min(1).max(255).optional(),
});
export const requestSchema = z.discriminatedUnion('op', [statusRequestSchema, publishPrRequestSchema, pushRequestSchema]);

export type PublisherRequest = z.infer<typeof requestSchema>;
export type PublishPrRequest = z.infer<typeof publishPrRequestSchema>;
export type PushRequest = z.infer<typeof pushRequestSchema>;

export const statusResultSchema = z.object({
  mode: z.enum(WRITE_MODES),
  pid: z.number().int(),
  version: z.string(),
  apiBase: z.string(),
  gitBase: z.string(),
  defaultRemote: z.string(),
  protectedBranches: z.array(z.string()),
  allowedRemotes: z.array(z.string()),
  tokenLoaded: z.boolean(),
  // Where the token was read from, and the daemon's state (its staging repository): zodexd masks
  // both from its commands.
  tokenFile: z.string().optional(),
  stateDir: z.string().optional(),
});
export const publishResultSchema = z.object({
  repository: z.string(),
  branch: z.string(),
  base: z.string(),
  commit: z.string(),
  prUrl: z.string(),
  prNumber: z.number().int(),
  existingPr: z.boolean(),
});
export const pushResultSchema = z.object({
  repository: z.string(),
  target: z.string(),
  commit: z.string(),
  previous: z.string().nullable(),
});

export type StatusResult = z.infer<typeof statusResultSchema>;
export type PublishResult = z.infer<typeof publishResultSchema>;
export type PushResult = z.infer<typeof pushResultSchema>;

export const responseSchema = z.discriminatedUnion('ok', [
  z.object({ version: z.literal(PROTOCOL_VERSION), id: z.string().nullable(), ok: z.literal(true), result: z.record(z.string(), z.unknown()) }),
  z.object({
    version: z.literal(PROTOCOL_VERSION),
    id: z.string().nullable(),
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
export type PublisherResponse = z.infer<typeof responseSchema>;

// text of one line -> a valid request, or BAD_REQUEST / UNSUPPORTED_VERSION saying what is wrong.
export function parseRequest(line: string): PublisherRequest {
  const unsupported = (got: string) =>
    `protocol version ${got} is not spoken here (this publisher speaks ${PROTOCOL_VERSION}); use a zodex-agent from the same zodex release`;
  return parseVersionedLine(line, requestSchema, PROTOCOL_VERSION, (code, message) => new PublisherError(code, message), unsupported);
}

export function requestIdOf(line: string): string | null {
  try {
    const json: unknown = JSON.parse(line);
    if (json && typeof json === 'object' && 'id' in json && typeof json.id === 'string') return json.id.slice(0, 128);
  } catch {
    // no id to echo
  }
  return null;
}

// Resolves with the first line the socket sends (without "\n"); rejects when it is longer than
// MAX_LINE_BYTES, when the socket ends first, or after timeoutMs.
export function readLine(socket: net.Socket, timeoutMs: number, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const finish = (error: Error | undefined, line?: string) => {
      clearTimeout(timer);
      stop();
      socket.off('end', onEnd);
      socket.off('error', onError);
      if (error) reject(error);
      else resolve(line ?? '');
    };
    const stop = readLines(
      socket,
      MAX_LINE_BYTES,
      (line) => finish(undefined, line),
      () => finish(new PublisherError('BAD_REQUEST', `${what} is longer than ${MAX_LINE_BYTES} bytes`)),
    );
    const onEnd = () => finish(new PublisherError('PUBLISHER_PROTOCOL', `the connection closed before a complete ${what} arrived`));
    const onError = (error: Error) => finish(error);
    const timer = setTimeout(() => finish(new PublisherError('PUBLISHER_TIMEOUT', `no complete ${what} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('end', onEnd);
    socket.on('error', onError);
  });
}
