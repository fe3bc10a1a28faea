// The MCP server of one conversation: instructions, capabilities and the tools of tools/index.ts
// (set_agent_alias in Local mode only) with the annotations --annotations picks, served by
// tools.ts, which validates; every call goes through the conversation, which records it and adds
// zodex_context. Knows no transport.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { NO_OBSERVER } from '../observe.js';
import { TOOLS, type CallControl, type ToolContext } from '../tools/index.js';
import type { Conversation } from './conversation.js';
import { annotationsFor } from './instructions.js';
import type { ServerRuntime } from './options.js';
import { defineTool, serveTools, type CallExtra, type ToolEntry } from './tools.js';

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
            void extra
              .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: count, message } })
              .catch(() => {});
          },
  };
}

export function createMcpServer(runtime: ServerRuntime, conversation: Conversation): McpServer {
  const { options } = runtime;
  const server = new McpServer(serverInfo(runtime), { instructions: options.instructions, capabilities: { tools: {} } });
  serveTools(server, toolsFor(runtime, conversation), runtime.log, runtime.observer, runtime.redact);
  return server;
}

export const serverInfo = (runtime: ServerRuntime) => ({ name: 'zodex', version: runtime.options.version });

// The tools one conversation (2025 era) or one agent (2026-07-28 era) is served, bound to it.
export function toolsFor(runtime: ServerRuntime, conversation: Conversation): ToolEntry[] {
  const { options, engine } = runtime;
  const { limits } = options;
  const context = (extra: CallExtra): ToolContext => ({
    engine,
    owner: conversation.id,
    principal: conversation.principal,
    agentId: () => conversation.agentId,
    sessionEnv: () => conversation.sessionEnv(),
    store: runtime.store,
    defaultWorkdir: limits.defaultWorkdir,
    maxExecTimeoutMs: limits.maxExecTimeoutMs,
    maxYieldMs: limits.maxYieldMs,
    patches: runtime.patches,
    call: callControl(extra),
  });
  const setup = {
    limits,
    annotations: (tool: Parameters<typeof annotationsFor>[1]) => annotationsFor(options.annotations, tool),
    conversation,
    context,
    observer: runtime.observer ?? NO_OBSERVER,
  };
  return TOOLS.filter((tool) => options.mode === 'local' || !tool.localOnly).map((tool) => defineTool(tool, setup));
}
