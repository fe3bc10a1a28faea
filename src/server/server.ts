// The MCP server of one conversation: instructions, capabilities and the tools of tools/index.ts
// (then the runtime's extra tools: set_agent_alias in Local mode) with the annotations --annotations picks, served by
// tools.ts, which validates; every call goes through the agent it runs as (the conversation id
// its _meta names, else the conversation itself), which records it and adds zodex_context; the
// commands belong to the conversation. Knows no transport.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NO_OBSERVER } from '../observe.js';
import { TOOLS, unknownToolCall, type CallControl, type ToolContext } from '../tools/index.js';
import type { Conversation } from './conversation.js';
import { annotationsFor } from './instructions.js';
import type { ServerRuntime } from './options.js';
import { defineTool, serveTools, unknownToolError, type CallAgent, type CallExtra, type ToolEntry } from './tools.js';

function callControl(extra: CallExtra): CallControl {
  const token = extra._meta?.progressToken;
  let count = 0;
  return {
    signal: extra.signal,
    progress:
      token === undefined
        ? undefined
        : (message) => {
            count += 1;
            void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: count, message } }).catch(() => {});
          },
  };
}

// A 2025-11-25 conversation's server. agentFor (app/ builds it from the agents the 2026-07-28
// era keeps) gives a call whose _meta names a conversation that conversation's agent (seed 002:
// "resolved from conversation metadata"); without it every call runs as the conversation's own.
export function createMcpServer(runtime: ServerRuntime, conversation: Conversation, agentFor?: (extra: CallExtra) => CallAgent): McpServer {
  const { options } = runtime;
  // capabilities.tools in McpServer's options would declare listChanged: true; zodex's list never changes.
  const server = new McpServer(serverInfo(runtime), { instructions: options.instructions });
  server.server.registerCapabilities({ tools: {} });
  const tools = toolsFor(runtime, conversation, agentFor ? { agentFor } : {});
  serveTools(server, tools, (name, raw, extra) => unknownToolCalled(tools, agentFor?.(extra) ?? ownAgent(conversation), name, raw), runtime.observer);
  return server;
}

// Records a call to a tool that does not exist, as the agent it came from, and answers UNKNOWN_TOOL.
export async function unknownToolCalled(tools: readonly ToolEntry[], agent: CallAgent, name: string, raw: Record<string, unknown>): Promise<CallToolResult> {
  try {
    const error = unknownToolError(
      name,
      tools.map((tool) => tool.definition.name),
    );
    return await agent.conversation.invoke(unknownToolCall(name, raw), () => Promise.reject(error));
  } finally {
    agent.release();
  }
}

// A call that runs as its conversation's own agent.
export const ownAgent = (conversation: Conversation): CallAgent => ({ conversation, release: () => {} });

export const serverInfo = (runtime: ServerRuntime) => ({ name: 'zodex', version: runtime.options.version });

// The tools one conversation (2025 era) or one agent (2026-07-28 era) is served, bound to it: its
// commands belong to `conversation` (leased: to their handles, as long as they are used); each
// call runs as the agent agentFor gives (default: itself).
export function toolsFor(
  runtime: ServerRuntime,
  conversation: Conversation,
  { agentFor = () => ownAgent(conversation), leased = false }: { agentFor?: (extra: CallExtra) => CallAgent; leased?: boolean } = {},
): ToolEntry[] {
  const { options, engine } = runtime;
  const { limits } = options;
  const context = (extra: CallExtra, agent: Conversation): ToolContext => ({
    engine,
    owner: conversation.id,
    leased,
    principal: conversation.principal,
    agentId: () => agent.agentId,
    sessionEnv: () => agent.sessionEnv(),
    defaultWorkdir: limits.defaultWorkdir,
    maxExecTimeoutMs: limits.maxExecTimeoutMs,
    maxYieldMs: limits.maxYieldMs,
    patches: runtime.patches,
    call: callControl(extra),
  });
  const setup = {
    limits,
    annotations: (tool: string) => annotationsFor(options.annotations, tool),
    agentFor,
    context,
    observer: runtime.observer ?? NO_OBSERVER,
  };
  return [...TOOLS, ...(runtime.extraTools ?? [])].map((tool) => defineTool(tool, setup));
}
