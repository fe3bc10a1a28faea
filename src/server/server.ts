// The MCP server of one conversation: instructions, capabilities and the tools of tools/index.ts
// (set_agent_alias in Local mode only) with the annotations --annotations picks, served by
// tools.ts, which validates; every call goes through the conversation, which records it and adds
// zodex_context. Knows no transport.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TOOLS, type CallControl, type SchemaLimits, type ToolContext } from '../tools/index.js';
import type { Conversation } from './conversation.js';
import { annotationsFor, instructionsFor } from './instructions.js';
import { defineTool, serveTools, type Extra } from './tools.js';
import { VERSION, type Runtime } from './runtime.js';

function callControl(extra: Extra): CallControl {
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

export function createMcpServer(runtime: Runtime, conversation: Conversation): McpServer {
  const { config, engine } = runtime;
  const server = new McpServer({ name: 'zodex', version: VERSION }, { instructions: instructionsFor(config), capabilities: { tools: {} } });
  const limits: SchemaLimits = {
    maxExecTimeoutMs: config.maxExecTimeoutMs,
    maxYieldMs: config.maxYieldMs,
    defaultWorkdir: config.defaultWorkdir,
    inlineLimitBytes: config.inlineLimitBytes,
    previewBytes: config.previewBytes,
    headBytes: config.headBytes,
    tailFileBytes: config.tailFileBytes,
    spillCapBytes: config.spillCapBytes,
  };
  const context = (extra: Extra): ToolContext => ({
    engine,
    owner: conversation.id,
    agentId: () => conversation.agentId,
    sessionEnv: () => conversation.sessionEnv(),
    store: runtime.store,
    defaultWorkdir: config.defaultWorkdir,
    maxExecTimeoutMs: config.maxExecTimeoutMs,
    maxYieldMs: config.maxYieldMs,
    call: callControl(extra),
  });
  const setup = { limits, annotations: (tool: Parameters<typeof annotationsFor>[1]) => annotationsFor(config.annotations, tool), conversation, context };
  const tools = TOOLS.filter((tool) => config.mode === 'local' || !tool.localOnly).map((tool) => defineTool(tool, setup));
  serveTools(server, tools, runtime.log);
  return server;
}
