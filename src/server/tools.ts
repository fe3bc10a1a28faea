// The tools/list and tools/call handlers of one conversation's server, in place of the SDK's
// (which strips unknown arguments and reports its own zod texts). Flow per call: the SDK's
// request check (-32602) -> tool known? -> tools/validate.ts -> the tool's run;
// a rejected call is recorded in the history like any failed call.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ZodexError, quote } from '../errors.js';
import { parseArguments } from '../tools/validate.js';
import type { Conversation, InvocationInfo } from './conversation.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ToolSpec<S extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  output?: z.ZodRawShape;
  annotations: ToolAnnotations;
  // How a rejected call appears in the history (from arguments that failed validation).
  rejected: (raw: Record<string, unknown>) => InvocationInfo;
  run: (args: z.infer<z.ZodObject<S>>, extra: Extra) => Promise<CallToolResult>;
}

// A tool with its argument types erased, so tools of different shapes share one table.
export interface ToolEntry {
  definition: Tool;
  call: (raw: Record<string, unknown>, extra: Extra, conversation: Conversation) => Promise<CallToolResult>;
}

export function defineTool<S extends z.ZodRawShape>(spec: ToolSpec<S>): ToolEntry {
  const definition: Tool = {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    // strict: the schema says additionalProperties false, as validation enforces
    inputSchema: z.toJSONSchema(z.strictObject(spec.input), { io: 'input', target: 'draft-7' }) as Tool['inputSchema'],
    annotations: spec.annotations,
  };
  if (spec.output) definition.outputSchema = z.toJSONSchema(z.object(spec.output), { io: 'output', target: 'draft-7' }) as Tool['outputSchema'];
  return {
    definition,
    call: (raw, extra, conversation) => {
      let args: z.infer<z.ZodObject<S>>;
      try {
        args = parseArguments(spec.name, spec.input, raw);
      } catch (error) {
        return conversation.invoke(spec.rejected(raw), () => Promise.reject(error));
      }
      return spec.run(args, extra);
    },
  };
}

const CallMethod = z.looseObject({ method: z.literal('tools/call') });

export function serveTools(server: McpServer, tools: readonly ToolEntry[], conversation: Conversation): void {
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((tool) => tool.definition) }));
  // The SDK's Server checks every tools/call against CallToolRequestSchema before this handler
  // (params.arguments that is not an object gets JSON-RPC -32602); registering that schema here
  // too would make the Protocol parse it first and answer -32603, so this one only names the method.
  server.server.setRequestHandler(CallMethod, async (request, extra) => {
    const params = (request as unknown as CallToolRequest).params;
    const raw = params.arguments ?? {};
    const tool = byName.get(params.name);
    if (!tool) {
      const error = new ZodexError('UNKNOWN_TOOL', `no tool is named ${quote(params.name)}; the tools are ${[...byName.keys()].join(', ')}`);
      return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
    }
    return tool.call(raw, extra, conversation);
  });
}
