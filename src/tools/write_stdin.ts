// write_stdin: its input schema and description, and the handler: refuse what cannot be honoured
// before anything changes, then rewind, kill, or type and wait for the answer (or the yield).

import { z } from 'zod';
import { ZodexError } from '../errors.js';
import type { ExecSession } from '../exec/session.js';
import { WRITE_STDIN_DEFAULT_YIELD_MS, PROGRESS_INTERVAL_MS, execResultShape, formatBytes, typed, yieldField, type SchemaLimits } from './schemas.js';
import { clampYield, collectWithProgress, toExecResult, withYield } from './exec-result.js';
import type { ExecOutcome } from './exec_command.js';
import { rejectedCall, tool, type CallControl, type ToolContext } from './tool.js';

// How long a kill_process call waits for the command to be gone before it reports.
const KILL_WAIT_MS = 5_000;
// After typed input, the call returns once the command has answered and then printed nothing
// more for this long (or at the yield, or when it exits).
export const ANSWER_SETTLE_MS = 10;
// A poll (no chars) returns once there is new output and it has paused this long, so that a
// burst written in pieces (a test summary, a compiler's errors) comes back whole...
export const POLL_SETTLE_MS = 100;
// ...or this long after the new output began, for a command that never pauses; a silent command
// still waits out yield_time_ms (the poll's maximum), unless it exits or waits for input.
export const POLL_MAX_SETTLE_MS = 1_000;

export function writeStdinInput(limits: SchemaLimits) {
  return {
    session_handle: z
      .string(typed('session_handle', 'a string', 'pass the handle a running exec_command result returned'))
      .min(1, 'INVALID_VALUE: `session_handle` is empty: pass the handle a running exec_command result returned')
      .describe('The session_handle from a result whose status was "running". It is a capability: keep it private.'),
    chars: z
      .string(typed('chars', 'a string', 'the text to type; omit it to just poll'))
      .optional()
      .describe('Text to type into the terminal. Include "\\n" to press Enter; "\\u0003" is Ctrl-C, "\\u0004" Ctrl-D. Omit to just poll.'),
    yield_time_ms: yieldField(WRITE_STDIN_DEFAULT_YIELD_MS, limits.maxYieldMs),
    kill_process: z
      .boolean(typed('kill_process', 'true or false', 'true kills the command'))
      .optional()
      .describe(
        'true: kill the command and everything it started (SIGKILL to all its descendants, daemons that left with setsid included); the result reports "killed".',
      ),
    since_offset: z
      .number({ error: 'SINCE_OFFSET_INVALID: `since_offset` must be a number: the output_offset of an earlier result' })
      // A whole number beyond what a double holds exactly is past the end of any stream, not invalid.
      .max(Number.MAX_SAFE_INTEGER, {
        error: (issue) => `SINCE_OFFSET_AHEAD: since_offset ${String(issue.input)} is past the end of the stream: pass the output_offset of an earlier result`,
        abort: true,
      })
      .int('SINCE_OFFSET_INVALID: `since_offset` must be a whole number of bytes: the output_offset of an earlier result')
      .nonnegative('SINCE_OFFSET_INVALID: `since_offset` must be 0 or more: the output_offset of an earlier result')
      .optional()
      .describe(
        'Deliver the output again from this byte offset of the stream (e.g. the output_offset of the last result you received, if a later reply was lost). ' +
          `Offsets count bytes of the decoded stream, the bytes output_file holds. Retained: the whole stream while it is within ${formatBytes(limits.inlineLimitBytes)}, ` +
          `then output_file (first ${formatBytes(limits.spillCapBytes)}) and the last ${formatBytes(limits.tailFileBytes)}; an offset between them fails with SINCE_OFFSET_NOT_RETAINED, one past the end with SINCE_OFFSET_AHEAD.`,
      ),
  };
}

export function writeStdinDescription(limits: Pick<SchemaLimits, 'maxYieldMs'>): string {
  return [
    'Write to or poll a running session.',
    'Continues a command that exec_command left running. Without chars it polls: it returns the output printed since the previous call as soon as there is some',
    `(once the output pauses for ${POLL_SETTLE_MS} ms, so a burst comes back whole; ${POLL_MAX_SETTLE_MS / 1000} s after it began at the latest), when the command finishes,`,
    `or at yield_time_ms (default ${Math.min(WRITE_STDIN_DEFAULT_YIELD_MS, limits.maxYieldMs)}, at most ${limits.maxYieldMs}), the longest it waits: a silent command waits it out;`,
    'with chars it types them first and returns as soon as the program has answered (printed something beyond the echo of the input and paused),',
    'so an interactive round trip does not wait out the yield; either way it returns as soon as the command waits for terminal input (waiting_for_input: true).',
    'With kill_process: true it kills the command and everything it started.',
    'since_offset delivers the output again from that stream offset (the output_offset of the last result you received).',
    'Once a result reports status "exited", the handle is spent.',
    `With a progressToken, progress notifications arrive every ${PROGRESS_INTERVAL_MS / 1000} s while waiting; most clients do not extend their request timeout for them.`,
  ].join(' ');
}

export interface WriteStdinArgs {
  session_handle: string;
  chars?: string | undefined;
  yield_time_ms?: number | undefined;
  kill_process?: boolean | undefined;
  since_offset?: number | undefined;
}

export async function writeStdin(
  args: WriteStdinArgs,
  session: ExecSession,
  ctx: Pick<ToolContext, 'engine' | 'maxYieldMs'>,
  call: CallControl,
): Promise<ExecOutcome> {
  if (args.kill_process && args.chars !== undefined && args.chars !== '') {
    throw new ZodexError('INVALID_ARGUMENT', 'send chars and kill_process in separate calls: type first, then kill if needed');
  }
  // Checked before anything is typed or killed: a since_offset that cannot be honoured changes nothing.
  if (args.since_offset !== undefined) session.rewind(args.since_offset);
  if (args.kill_process) {
    session.kill('killed');
    return { result: toExecResult(await ctx.engine.collect(session, KILL_WAIT_MS, call.signal)), sessionId: session.id };
  }
  if (args.chars) session.write(args.chars);
  const yieldMs = clampYield(args.yield_time_ms, WRITE_STDIN_DEFAULT_YIELD_MS, ctx.maxYieldMs);
  const settle = args.chars ? { answerSettleMs: ANSWER_SETTLE_MS } : { outputSettle: { quietMs: POLL_SETTLE_MS, maxMs: POLL_MAX_SETTLE_MS } };
  const report = await collectWithProgress(ctx.engine, session, yieldMs, call, settle);
  return { result: withYield(toExecResult(report), args.yield_time_ms, yieldMs), sessionId: session.id };
}

// How a write_stdin call is described in the history: never the typed text itself.
export function describeWriteStdin(args: WriteStdinArgs): string {
  if (args.kill_process) return 'kill';
  if (args.chars) return `input (${[...args.chars].length} characters)`;
  return 'poll';
}

// The workdir of a handle for the record, only when the caller may use it (no other grant's cwd).
function ownCwd(ctx: ToolContext, handle: string): string | undefined {
  const session = ctx.engine.peek(handle);
  return session && (session.principal === undefined || session.principal === ctx.principal) ? session.cwd : undefined;
}

export const writeStdinTool = tool({
  name: 'write_stdin',
  title: 'Write to or poll a running session',
  description: writeStdinDescription,
  input: writeStdinInput,
  output: execResultShape,
  record: (args, ctx) => ({ tool: 'write_stdin', workdir: ownCwd(ctx, args.session_handle), summary: describeWriteStdin(args) }),
  // never the typed text: only what the call was, as for an accepted one
  rejected: (raw) =>
    rejectedCall(
      'write_stdin',
      raw,
      describeWriteStdin({ session_handle: '', chars: typeof raw.chars === 'string' ? raw.chars : undefined, kill_process: raw.kill_process === true }),
    ),
  run: async (args, ctx) => ({ kind: 'exec', ...(await writeStdin(args, ctx.engine.find(args.session_handle, ctx.principal), ctx, ctx.call)) }),
});
