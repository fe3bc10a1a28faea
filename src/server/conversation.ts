// One conversation (a stdio connection, an HTTP session): its Agent ID, given at its first
// tool call; its zodex_context memory (Local mode); and the recording of every invocation by the
// runtime's recorder (seams.ts). Flow per call: invoke() -> start record -> tool body -> finish record -> result,
// with the context the seed asks for added once, after the original result (unrecorded(): the
// same without the record, for a call that is no invocation). Every text of a result (output,
// error texts quoting inputs, context files) has each known secret value replaced on the way out.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { InvocationInfo, Outcome } from '../tools/index.js';
import { errorResult } from './results.js';
import type { ServerRuntime } from './options.js';
import type { ResultContext } from './seams.js';

export type { InvocationInfo, Outcome };

export class Conversation {
  private agent: string | undefined;
  private env: Readonly<Record<string, string>> | undefined;
  private readonly context: ResultContext | undefined;

  constructor(
    private readonly runtime: ServerRuntime,
    readonly id: string,
    readonly principal = 'static', // an OAuth grant id, else 'static' (the static token, or none)
  ) {
    this.context = runtime.newContext?.();
  }

  // The Agent ID if one was assigned (no assignment).
  get assignedAgentId(): string | undefined {
    return this.agent;
  }

  // The four-character Agent ID, assigned at the first tool call that needs it.
  get agentId(): string {
    this.agent ??= this.runtime.recorder.registerAgent(this.runtime.serverId);
    return this.agent;
  }

  // Variables every command of this conversation's agent gets (the runtime's commandEnv: who
  // started it, where the publisher listens). One frozen object for the conversation's life, so
  // the engine builds and encodes each command's environment from it once.
  sessionEnv(): Readonly<Record<string, string>> {
    const agentId = this.agentId;
    this.env ??= Object.freeze({ ...this.runtime.commandEnv?.(agentId) });
    return this.env;
  }

  // Runs one tool call, records it, and shapes its MCP result, redacted.
  async invoke(info: InvocationInfo, body: () => Promise<Outcome>): Promise<CallToolResult> {
    return this.redacted(await this.run(info, body));
  }

  private redacted(result: CallToolResult): CallToolResult {
    const { redact } = this.runtime;
    return redact ? redactStrings(result, redact) : result;
  }

  private async run(info: InvocationInfo, body: () => Promise<Outcome>): Promise<CallToolResult> {
    const { recorder, log } = this.runtime;
    const record = recorder.startInvocation({ agentId: this.agentId, tool: info.tool, workdir: info.workdir, summary: info.summary });
    let outcome: Outcome;
    try {
      outcome = await body();
    } catch (error) {
      const result = errorResult(error, (message, fields) => log(message, { ...fields, agent: this.agentId }));
      const text = result.content[0]?.type === 'text' ? result.content[0].text : 'error';
      recorder.finishInvocation(record, { resultSummary: text.split('\n')[0]!, isError: true });
      return this.withContext(result, { succeeded: false, workdir: undefined });
    }
    if (outcome.kind === 'exec') {
      const { result } = outcome;
      recorder.finishInvocation(record, {
        // A running summary names the handle, a capability: the record keeps only its first part.
        resultSummary: result.session_handle === undefined ? result.summary : result.summary.split(';')[0]!,
        isError: false,
        exitCode: result.exit_code,
        terminationReason: result.termination_reason,
        sessionId: outcome.sessionId,
        outputFile: result.output_file,
      });
      const context = this.context?.forResult({ workdir: result.cwd, succeeded: true });
      const structured = context === undefined ? result : { ...result, zodex_context: context };
      return {
        content: [{ type: 'text', text: appendContext(JSON.stringify(result), context) }],
        structuredContent: structured as Record<string, unknown>,
      };
    }
    recorder.finishInvocation(record, { resultSummary: outcome.text.split('\n')[0]!, isError: outcome.isError });
    return this.withContext(textResult(outcome), { succeeded: !outcome.isError, workdir: info.workdir });
  }

  // Runs a call that is no invocation (set_agent_alias: never in the timeline), unrecorded; a
  // failure is mapped like any other and leaves the pending context for the next result.
  async unrecorded(body: () => Promise<Extract<Outcome, { kind: 'text' }>>): Promise<CallToolResult> {
    let outcome: Extract<Outcome, { kind: 'text' }>;
    try {
      outcome = await body();
    } catch (error) {
      return this.redacted(errorResult(error, this.runtime.log));
    }
    return this.redacted(this.withContext(textResult(outcome), { succeeded: !outcome.isError, workdir: undefined }));
  }

  // Appends the conversation's pending zodex_context, if any, to a text result.
  withContext(result: CallToolResult, at: { succeeded: boolean; workdir: string | undefined }): CallToolResult {
    const context = this.context?.forResult(at);
    const first = result.content[0];
    if (context === undefined || first?.type !== 'text') return result;
    return { ...result, content: [{ ...first, text: appendContext(first.text, context) }, ...result.content.slice(1)] };
  }

  close(): void {
    this.runtime.engine.closeOwner(this.id);
    this.forget();
  }

  // Ends the agent's record only, its commands left alone: an idle 2026-07-28 agent forgotten
  // while the exit of a command it started is still to be reported on its handle.
  forget(): void {
    if (this.agent !== undefined) this.runtime.recorder.endAgent(this.agent);
  }
}

// `value` with `redact` applied to every string inside it (plain JSON data: a tool result).
function redactStrings<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactStrings(item, redact)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactStrings(item, redact);
  return out as T;
}

function textResult(outcome: Extract<Outcome, { kind: 'text' }>): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: outcome.text }] };
  if (outcome.isError) result.isError = true;
  if (outcome.structured) result.structuredContent = outcome.structured;
  return result;
}

function appendContext(text: string, context: string | undefined): string {
  return context === undefined ? text : `${text}\n\n${context}`;
}
