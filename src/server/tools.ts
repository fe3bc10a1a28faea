// The tools/list and tools/call handlers of one conversation's server, in place of the SDK's
// (which strips unknown arguments and reports its own zod texts). Flow per call: the SDK's
// request check (-32602, call-request.ts) -> tool known? -> tools/validate.ts -> the conversation records it
// (unless the tool is no invocation) and runs the tool; a rejected call is recorded like any failed call.
// Every call, in both eras, is told to the observer (started, then ended with its outcome and time).

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool as SdkTool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ZodexError, isErrorCode, quote } from '../errors.js';
import type { CallOutcome, Observer } from '../observe.js';
import type { Outcome, SchemaLimits, Tool, ToolContext, ToolName } from '../tools/index.js';
import { parseArguments } from '../tools/validate.js';
import { setCallHandler } from './call-request.js';
import type { Conversation } from './conversation.js';
import { errorResult } from './results.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
// What a tool's call uses of the request: the 2025 SDK's extra, or the modern era's own.
export type CallExtra = Pick<Extra, 'signal' | '_meta' | 'sendNotification'>;

// A tool as the SDK lists it, and its call with the argument types erased.
export interface ToolEntry {
  definition: SdkTool;
  call: (raw: Record<string, unknown>, extra: CallExtra) => Promise<CallToolResult>;
}

export interface ToolSetup {
  limits: SchemaLimits;
  annotations: (tool: ToolName) => ToolAnnotations;
  conversation: Conversation;
  // What a handler may use during one call.
  context: (extra: CallExtra) => ToolContext;
  observer: Observer;
}

// The label an unknown tool's calls are counted under (never the client's name: bounded labels).
export const UNKNOWN_TOOL_LABEL = 'unknown';

// How a call ended, for the observer: 'cancelled', 'ok', or the registered code its error text
// starts with (errors are "CODE: message", results.ts), else INTERNAL.
export function callOutcome(result: CallToolResult, signal: AbortSignal | undefined): CallOutcome {
  if (signal?.aborted) return 'cancelled';
  if (!result.isError) return 'ok';
  const first = result.content[0];
  const code = first?.type === 'text' ? /^([A-Z][A-Z0-9_]*):/.exec(first.text)?.[1] : undefined;
  return code !== undefined && isErrorCode(code) ? code : 'INTERNAL';
}

// Runs one call and tells the observer how it went and how long it took.
export async function observed(observer: Observer, tool: string, signal: AbortSignal | undefined, body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  const started = process.hrtime.bigint();
  observer.callStarted(tool);
  let outcome: CallOutcome = 'INTERNAL';
  try {
    const result = await body();
    outcome = callOutcome(result, signal);
    return result;
  } finally {
    observer.callEnded(tool, outcome, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

export function defineTool(tool: Tool, setup: ToolSetup): ToolEntry {
  const input = tool.input(setup.limits);
  const output = tool.output?.();
  const definition: SdkTool = {
    name: tool.name,
    title: tool.title,
    description: tool.description(setup.limits),
    // strict: the schema says additionalProperties false, as validation enforces
    inputSchema: z.toJSONSchema(z.strictObject(input), { io: 'input', target: 'draft-7' }) as SdkTool['inputSchema'],
    annotations: setup.annotations(tool.name),
  };
  if (output) definition.outputSchema = z.toJSONSchema(z.object(output), { io: 'output', target: 'draft-7' }) as SdkTool['outputSchema'];
  const { conversation } = setup;
  const run = (raw: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> => {
    let args: Record<string, unknown>;
    try {
      args = parseArguments(tool.name, input, raw);
    } catch (error) {
      return conversation.invoke(tool.rejected(raw), () => Promise.reject(error));
    }
    const ctx = setup.context(extra);
    if (!tool.record) return conversation.unrecorded(() => tool.run(args, ctx) as Promise<Extract<Outcome, { kind: 'text' }>>);
    return conversation.invoke(tool.record(args, ctx), () => tool.run(args, ctx));
  };
  return { definition, call: (raw, extra) => observed(setup.observer, tool.name, extra.signal, () => run(raw, extra)) };
}

export function serveTools(
  server: McpServer,
  tools: readonly ToolEntry[],
  log: (message: string) => void,
  observer?: Observer,
  redact: (text: string) => string = (text) => text,
): void {
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.definition) }));
  // The SDK's checks of a tools/call (-32602 for params it refuses) run in call-request.ts, once.
  setCallHandler(server, async (request, extra) => {
    const { params } = request;
    const raw = params.arguments ?? {};
    const tool = byName.get(params.name);
    if (!tool) {
      const refused = errorResult(new ZodexError('UNKNOWN_TOOL', `no tool is named ${redact(quote(params.name))}; the tools are ${[...byName.keys()].join(', ')}`), log);
      return observer ? observed(observer, UNKNOWN_TOOL_LABEL, extra.signal, async () => refused) : refused;
    }
    return tool.call(raw, extra);
  });
}
