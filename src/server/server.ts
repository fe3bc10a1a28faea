// The MCP server of one conversation: instructions, capabilities and the tools, defined with
// their strict zod schemas and the annotations --annotations picks (served by tools.ts, which validates);
// every call goes through the conversation, which records it and adds zodex_context.
// Knows no transport.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { clipText, quote } from '../errors.js';
import { describePatch, applyPatchTool } from '../tools/apply_patch.js';
import { describeWriteStdin, execCommand, writeStdin, type CallControl, type ExecToolContext } from '../tools/exec.js';
import {
  APPLY_PATCH_DESCRIPTION,
  SET_AGENT_ALIAS_DESCRIPTION,
  aliasResultShape,
  applyPatchInput,
  describeExecCommand,
  writeStdinDescription,
  execCommandInput,
  execResultShape,
  setAgentAliasInput,
  writeStdinInput,
  type SchemaLimits,
} from '../tools/schemas.js';
import type { Conversation, InvocationInfo } from './conversation.js';
import { annotationsFor, instructionsFor } from './instructions.js';
import { guarded } from './results.js';
import { defineTool, serveTools, type Extra, type ToolEntry } from './tools.js';
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

// How a call rejected by validation is recorded, like any failed call: what it named, bounded,
// and quoted (escaped) when it holds what cannot be stored as given (NUL, lone surrogates).
function rejectedCall(tool: string, raw: Record<string, unknown>, summary: (raw: Record<string, unknown>) => string): InvocationInfo {
  return { tool, workdir: typeof raw.workdir === 'string' ? printable(raw.workdir) : undefined, summary: summary(raw) };
}

function printable(value: string): string {
  return /[\0\p{Cs}]/u.test(value) ? quote(value) : clipText(value, 2_000);
}

const field = (raw: Record<string, unknown>, name: string): string => (typeof raw[name] === 'string' ? printable(raw[name]) : `(no ${name})`);

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
  const ctx: ExecToolContext = {
    engine,
    owner: conversation.id,
    agentId: () => conversation.agentId,
    sessionEnv: () => conversation.sessionEnv(),
    defaultWorkdir: config.defaultWorkdir,
    maxExecTimeoutMs: config.maxExecTimeoutMs,
    maxYieldMs: config.maxYieldMs,
  };
  const output = execResultShape();

  const tools: ToolEntry[] = [
    defineTool({
      name: 'exec_command',
      title: 'Run a shell command',
      description: describeExecCommand(limits),
      input: execCommandInput(limits),
      output,
      annotations: annotationsFor(config.annotations, 'exec_command'),
      rejected: (raw) => rejectedCall('exec_command', raw, (r) => field(r, 'cmd')),
      run: (args, extra) =>
        conversation.invoke({ tool: 'exec_command', workdir: args.workdir ?? config.defaultWorkdir, summary: args.cmd }, async () => ({
          kind: 'exec',
          ...(await execCommand(args, ctx, callControl(extra))),
        })),
    }),
    defineTool({
      name: 'write_stdin',
      title: 'Write to or poll a running session',
      description: writeStdinDescription(limits),
      input: writeStdinInput(limits),
      output,
      annotations: annotationsFor(config.annotations, 'write_stdin'),
      // never the typed text: only what the call was, as for an accepted one
      rejected: (raw) =>
        rejectedCall('write_stdin', raw, (r) =>
          describeWriteStdin({ session_handle: '', chars: typeof r.chars === 'string' ? r.chars : undefined, kill_process: r.kill_process === true }),
        ),
      run: (args, extra) =>
        conversation.invoke({ tool: 'write_stdin', workdir: engine.peek(args.session_handle)?.cwd, summary: describeWriteStdin(args) }, async () => ({
          kind: 'exec',
          ...(await writeStdin(args, engine.find(args.session_handle), ctx, callControl(extra))),
        })),
    }),
    defineTool({
      name: 'apply_patch',
      title: 'Apply a Codex-style patch',
      description: APPLY_PATCH_DESCRIPTION,
      input: applyPatchInput(),
      annotations: annotationsFor(config.annotations, 'apply_patch'),
      rejected: (raw) => rejectedCall('apply_patch', raw, (r) => (typeof r.patch === 'string' ? describePatch(r.patch) : '(no patch)')),
      run: (args) =>
        conversation.invoke({ tool: 'apply_patch', workdir: args.workdir, summary: describePatch(args.patch) }, async () => ({
          kind: 'text',
          ...(await applyPatchTool(args)),
        })),
    }),
  ];
  if (config.mode === 'local') {
    tools.push(
      defineTool({
        name: 'set_agent_alias',
        title: 'Label this conversation in Liveboard',
        description: SET_AGENT_ALIAS_DESCRIPTION,
        input: setAgentAliasInput(),
        output: aliasResultShape(),
        annotations: annotationsFor(config.annotations, 'set_agent_alias'),
        // An alias change is not an invocation (never in the timeline); a rejected call is.
        rejected: (raw) => rejectedCall('set_agent_alias', raw, (r) => (typeof r.alias === 'string' ? `alias (${[...r.alias].length} characters)` : '(no alias)')),
        run: (args) =>
          guarded(async () => {
            const agentId = conversation.agentId;
            runtime.store.setAlias(agentId, args.alias, 'agent');
            const alias = runtime.store.agent(agentId)?.alias ?? '';
            const text = alias ? `Agent ${agentId} is now labelled ${JSON.stringify(alias)} in Liveboard.` : `Agent ${agentId} has no alias now.`;
            return conversation.withContext({ content: [{ type: 'text', text }], structuredContent: { agent_id: agentId, alias } }, { succeeded: true, workdir: undefined });
          }, runtime.log),
      }),
    );
  }
  serveTools(server, tools, conversation);
  return server;
}
