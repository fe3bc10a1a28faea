// The MCP server of one conversation: instructions, capabilities and the tools, registered
// with their zod schemas and seed 000's annotations; every call goes through the
// conversation, which records it and adds zodex_context. Knows no transport.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { describePatch, applyPatchTool } from '../tools/apply_patch.js';
import { describeWriteStdin, execCommand, writeStdin, type CallControl, type ExecToolContext } from '../tools/exec.js';
import {
  APPLY_PATCH_DESCRIPTION,
  SET_AGENT_ALIAS_DESCRIPTION,
  WRITE_STDIN_DESCRIPTION,
  aliasResultShape,
  applyPatchInput,
  describeExecCommand,
  execCommandInput,
  execResultShape,
  setAgentAliasInput,
  writeStdinInput,
  type SchemaLimits,
} from '../tools/schemas.js';
import type { Conversation } from './conversation.js';
import { guarded } from './results.js';
import { VERSION, type Runtime } from './runtime.js';

export const INSTRUCTIONS =
  'zodex remote execution tools. ' +
  'Use them whenever a task needs this machine: exec_command runs a shell command (always pass an absolute workdir), ' +
  'write_stdin polls, types into or kills a command that is still running, and apply_patch edits files with a Codex-style patch.';

// Seed 000: every tool carries these, describing the MCP surface, not what a command may do.
export const TOOL_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
  const server = new McpServer({ name: 'zodex', version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
  const limits: SchemaLimits = {
    maxExecTimeoutMs: config.maxExecTimeoutMs,
    defaultWorkdir: config.defaultWorkdir,
    inlineLimitBytes: config.inlineLimitBytes,
    previewBytes: config.previewBytes,
    headBytes: config.headBytes,
    tailFileBytes: config.tailFileBytes,
    spillCapBytes: config.spillCapBytes,
  };
  const ctx: ExecToolContext = {
    engine,
    owner: conversation.id,
    agentId: () => conversation.agentId,
    sessionEnv: () => conversation.sessionEnv(),
    defaultWorkdir: config.defaultWorkdir,
    maxExecTimeoutMs: config.maxExecTimeoutMs,
  };
  const outputSchema = execResultShape();

  server.registerTool(
    'exec_command',
    { title: 'Run a shell command', description: describeExecCommand(limits), inputSchema: execCommandInput(limits), outputSchema, annotations: TOOL_ANNOTATIONS },
    (args, extra) =>
      conversation.invoke({ tool: 'exec_command', workdir: args.workdir ?? config.defaultWorkdir, summary: args.cmd }, async () => ({
        kind: 'exec',
        ...(await execCommand(args, ctx, callControl(extra))),
      })),
  );
  server.registerTool(
    'write_stdin',
    { title: 'Write to or poll a running session', description: WRITE_STDIN_DESCRIPTION, inputSchema: writeStdinInput(limits), outputSchema, annotations: TOOL_ANNOTATIONS },
    (args, extra) =>
      conversation.invoke({ tool: 'write_stdin', workdir: engine.peek(args.session_handle)?.cwd, summary: describeWriteStdin(args) }, async () => ({
        kind: 'exec',
        ...(await writeStdin(args, engine.find(args.session_handle), ctx, callControl(extra))),
      })),
  );
  server.registerTool(
    'apply_patch',
    { title: 'Apply a Codex-style patch', description: APPLY_PATCH_DESCRIPTION, inputSchema: applyPatchInput(), annotations: TOOL_ANNOTATIONS },
    (args) =>
      conversation.invoke({ tool: 'apply_patch', workdir: args.workdir, summary: describePatch(args.patch) }, async () => ({
        kind: 'text',
        ...(await applyPatchTool(args)),
      })),
  );
  if (config.mode === 'local') {
    server.registerTool(
      'set_agent_alias',
      {
        title: 'Label this conversation in Liveboard',
        description: SET_AGENT_ALIAS_DESCRIPTION,
        inputSchema: setAgentAliasInput(),
        outputSchema: aliasResultShape(),
        annotations: TOOL_ANNOTATIONS,
      },
      // Not an invocation: an alias never appears in the timeline or the history.
      (args) =>
        guarded(async () => {
          const agentId = conversation.agentId;
          runtime.store.setAlias(agentId, args.alias, 'agent');
          const alias = runtime.store.agent(agentId)?.alias ?? '';
          const text = alias ? `Agent ${agentId} is now labelled ${JSON.stringify(alias)} in Liveboard.` : `Agent ${agentId} has no alias now.`;
          return conversation.withContext({ content: [{ type: 'text', text }], structuredContent: { agent_id: agentId, alias } }, { succeeded: true, workdir: undefined });
        }, runtime.log),
    );
  }
  return server;
}
