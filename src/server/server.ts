// The MCP server of one conversation: instructions, capabilities and the tools, registered
// with their zod schemas and seed 000's annotations. Knows no transport.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { applyPatchTool } from '../tools/apply_patch.js';
import { execCommand, writeStdin, type CallControl, type ExecToolContext } from '../tools/exec.js';
import {
  APPLY_PATCH_DESCRIPTION,
  WRITE_STDIN_DESCRIPTION,
  applyPatchInput,
  describeExecCommand,
  execCommandInput,
  execResultShape,
  writeStdinInput,
  type SchemaLimits,
} from '../tools/schemas.js';
import { guarded, structuredResult, textResult } from './results.js';
import { VERSION, type Runtime } from './runtime.js';

export const INSTRUCTIONS =
  'zodex remote execution tools. ' +
  'Use them whenever a task needs this machine: exec_command runs a shell command (always pass an absolute workdir), ' +
  'write_stdin polls, types into or kills a command that is still running, and apply_patch edits files with a Codex-style patch.';

// Seed 000: every tool carries these, describing the MCP surface, not what a command may do.
export const TOOL_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

export interface Conversation {
  id: string;
}

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
  const { config } = runtime;
  const server = new McpServer({ name: 'zodex', version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
  const limits: SchemaLimits = {
    maxExecTimeoutMs: config.maxExecTimeoutMs,
    defaultWorkdir: config.defaultWorkdir,
    inlineLimitBytes: config.inlineLimitBytes,
    previewBytes: config.previewBytes,
    spillCapBytes: config.spillCapBytes,
  };
  const ctx: ExecToolContext = {
    engine: runtime.engine,
    owner: conversation.id,
    defaultWorkdir: config.defaultWorkdir,
    maxExecTimeoutMs: config.maxExecTimeoutMs,
  };
  const outputSchema = execResultShape();

  server.registerTool(
    'exec_command',
    { title: 'Run a shell command', description: describeExecCommand(limits), inputSchema: execCommandInput(limits), outputSchema, annotations: TOOL_ANNOTATIONS },
    (args, extra) => guarded(async () => structuredResult(await execCommand(args, ctx, callControl(extra))), runtime.log),
  );
  server.registerTool(
    'write_stdin',
    { title: 'Write to or poll a running session', description: WRITE_STDIN_DESCRIPTION, inputSchema: writeStdinInput(), outputSchema, annotations: TOOL_ANNOTATIONS },
    (args, extra) => guarded(async () => structuredResult(await writeStdin(args, ctx, callControl(extra))), runtime.log),
  );
  server.registerTool(
    'apply_patch',
    { title: 'Apply a Codex-style patch', description: APPLY_PATCH_DESCRIPTION, inputSchema: applyPatchInput(), annotations: TOOL_ANNOTATIONS },
    (args) =>
      guarded(async () => {
        const { text, isError } = await applyPatchTool(args);
        return textResult(text, isError);
      }, runtime.log),
  );
  return server;
}
