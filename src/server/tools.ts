// The tools/list and tools/call handlers of one conversation's server, in place of the SDK's
// (which strips unknown arguments and reports its own zod texts). Flow per call: the SDK's
// request and result checks (its Server's own tools/call wrapper) -> the agent the call runs as (its _meta, else the
// conversation) -> tool known? -> tools/validate.ts -> the agent records it (unless the tool is no
// invocation) and runs the tool; a rejected call, an unknown tool's too, is recorded like any
// failed call, except a rejected call of a tool that is no invocation (set_agent_alias).
// Every call, in both eras, is told to the observer (started, then ended with its outcome and time).

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool as SdkTool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ZodexError, isErrorCode, quote } from '../errors.js';
import type { CallOutcome, Observer } from '../observe.js';
import type { Outcome, SchemaLimits, Tool, ToolContext } from '../tools/index.js';
import { parseArguments } from '../tools/validate.js';
import type { Conversation } from './conversation.js';

// What the SDK hands a request handler besides the request (the call's signal, _meta, notifications).
export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
// What a tool's call uses of the request: the 2025 SDK's extra, or the 2026-07-28 era's own.
export type CallExtra = Pick<Extra, 'signal' | '_meta' | 'sendNotification'>;

// A tool as the SDK lists it, and its call with the argument types erased.
export interface ToolEntry {
  definition: SdkTool;
  call: (raw: Record<string, unknown>, extra: CallExtra) => Promise<CallToolResult>;
}

// The conversation a call is recorded under and runs as (its Agent ID, zodex_context); release()
// once the call is done.
export interface CallAgent {
  conversation: Conversation;
  release(): void;
}

export interface ToolSetup {
  limits: SchemaLimits;
  annotations: (tool: string) => ToolAnnotations;
  agentFor: (extra: CallExtra) => CallAgent;
  // What a handler may use during one call, run as `agent`.
  context: (extra: CallExtra, agent: Conversation) => ToolContext;
  observer: Observer;
}

// The one text of a call to a tool this server does not have, in both eras.
export function unknownToolError(name: string, names: readonly string[]): ZodexError {
  return new ZodexError('UNKNOWN_TOOL', `no tool is named ${quote(name)}; the tools are ${names.join(', ')}`);
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
export async function observed(
  observer: Observer,
  tool: string,
  signal: AbortSignal | undefined,
  body: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
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
  const run = async (raw: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> => {
    const { conversation, release } = setup.agentFor(extra);
    try {
      let args: Record<string, unknown>;
      try {
        args = parseArguments(tool.name, input, raw);
      } catch (error) {
        // A call that is no invocation stays out of the timeline, rejected or not (seed 002).
        if (!tool.record) return await conversation.unrecorded(() => Promise.reject(error));
        return await conversation.invoke(tool.rejected(raw), () => Promise.reject(error));
      }
      const ctx = setup.context(extra, conversation);
      if (!tool.record) return await conversation.unrecorded(() => tool.run(args, ctx) as Promise<Extract<Outcome, { kind: 'text' }>>);
      return await conversation.invoke(tool.record(args, ctx), () => tool.run(args, ctx));
    } finally {
      release();
    }
  };
  return { definition, call: (raw, extra) => observed(setup.observer, tool.name, extra.signal, () => run(raw, extra)) };
}

// unknown: answers (and records) a call to a tool not in `tools`; observer: hears every call.
export function serveTools(
  server: McpServer,
  tools: readonly ToolEntry[],
  unknown: (name: string, raw: Record<string, unknown>, extra: CallExtra) => Promise<CallToolResult>,
  observer?: Observer,
): void {
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.definition) }));
  // The SDK Server wraps it in its checks (-32602 for params it refuses); the loose schema, not
  // CallToolRequestSchema, so that a refused request gets that wrapper's answer, not a parse error.
  server.server.setRequestHandler(z.looseObject({ method: z.literal('tools/call') }), async (request, extra) => {
    const { params } = request as CallToolRequest;
    const raw = params.arguments ?? {};
    const tool = byName.get(params.name);
    if (!tool)
      return observer ? observed(observer, UNKNOWN_TOOL_LABEL, extra.signal, () => unknown(params.name, raw, extra)) : unknown(params.name, raw, extra);
    return tool.call(raw, extra);
  });
}
