// The tools/call checks the SDK's Server wraps around its handler, done once and cheaply: a
// request of the plain shape (params.name a string, arguments absent or a plain object, no _meta,
// no task) is one CallToolRequestSchema accepts, so only other shapes pay its zod parse, and they
// get its -32602 text word for word. The result is not parsed again: zodex builds it itself
// (spec/server/call-request.test.ts pins that the SDK's result schema leaves each shape unchanged).

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// What the SDK hands a request handler besides the request (the call's signal, _meta, notifications).
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const CallMethod = z.looseObject({ method: z.literal('tools/call') });

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

// True when CallToolRequestSchema accepts `request` without looking further (its params object
// strips other keys; only _meta and task have shapes of their own).
export function isPlainCallRequest(request: { params?: unknown }): boolean {
  const params = request.params;
  if (!isPlainObject(params) || typeof params.name !== 'string') return false;
  if (Object.hasOwn(params, '_meta') || Object.hasOwn(params, 'task')) return false;
  return params.arguments === undefined ? !Object.hasOwn(params, 'arguments') : isPlainObject(params.arguments);
}

// What the SDK's Server answers for a tools/call whose params its schema refuses, else undefined.
export function refusedCallRequest(request: unknown): McpError | undefined {
  const checked = safeParse(CallToolRequestSchema, request);
  if (checked.success) return undefined;
  const message = checked.error instanceof Error ? checked.error.message : String(checked.error);
  return new McpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${message}`);
}

type CallHandler = (request: CallToolRequest, extra: Extra) => Promise<CallToolResult>;

// Registers `handler` for tools/call on the Protocol itself, past the Server's wrapper (which
// parses every request and result with zod), with the same answers to a request it refuses and
// to a task-augmented one.
export function setCallHandler(server: McpServer, handler: CallHandler): void {
  Protocol.prototype.setRequestHandler.call(server.server, CallMethod, async (request: unknown, extra: Extra) => {
    const call = request as CallToolRequest;
    if (isPlainCallRequest(call)) return handler(call, extra);
    const refused = refusedCallRequest(request);
    if (refused) throw refused;
    const result = await handler(call, extra);
    if (call.params.task === undefined) return result;
    const task = safeParse(CreateTaskResultSchema, result);
    if (task.success) return task.data;
    const message = task.error instanceof Error ? task.error.message : String(task.error);
    throw new McpError(ErrorCode.InvalidParams, `Invalid task creation result: ${message}`);
  });
}
