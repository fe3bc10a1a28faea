// exec_command and write_stdin: validate and clamp the arguments (the yield to --max-yield-ms),
// drive the engine, and shape its report into the result contract (one shape for both tools).
// A cancelled exec_command kills its command: nobody ever received its handle.

import os from 'node:os';
import { ZodexError } from '../errors.js';
import type { ExecEngine } from '../exec/engine.js';
import type { Session, SessionReport } from '../exec/session.js';
import { formatSeconds } from '../exec/summary.js';
import { EXEC_DEFAULT_YIELD_MS, PROGRESS_INTERVAL_MS, WRITE_STDIN_DEFAULT_YIELD_MS, type ExecResult } from './schemas.js';
import { resolveWorkdir } from './workdir.js';

// How long a kill_process call waits for the command to be gone before it reports.
const KILL_WAIT_MS = 5_000;
// After typed input, the call returns once the command has answered and then printed nothing
// more for this long (or at the yield, or when it exits).
export const ANSWER_SETTLE_MS = 10;

export interface ExecToolContext {
  engine: ExecEngine;
  owner: string; // the conversation
  agentId: () => string;
  sessionEnv: () => Record<string, string>; // extra variables for the command
  defaultWorkdir: string | undefined;
  maxExecTimeoutMs: number;
  maxYieldMs: number; // --max-yield-ms: no call waits longer
}

// A result and the (opaque) id of the session it came from, for the records.
export interface ExecOutcome {
  result: ExecResult;
  sessionId: string;
}

export interface CallControl {
  signal: AbortSignal;
  // Sends a progress notification, when the caller asked for them.
  progress: ((message: string) => void) | undefined;
}

export interface ExecCommandArgs {
  cmd: string;
  workdir?: string | undefined;
  yield_time_ms?: number | undefined;
  timeout_ms?: number | undefined;
}

export interface WriteStdinArgs {
  session_handle: string;
  chars?: string | undefined;
  yield_time_ms?: number | undefined;
  kill_process?: boolean | undefined;
  since_offset?: number | undefined;
}

// The wait a call gets: yield_time_ms within 0..max (the default also capped), whole ms.
export function clampYield(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || Number.isNaN(value)) return Math.min(fallback, max);
  return Math.round(Math.min(max, Math.max(0, value)));
}

// The result names the wait used when it differs from the one asked for.
function withYield(result: ExecResult, asked: number | undefined, used: number): ExecResult {
  if (asked !== undefined && asked !== used) result.yield_time_ms = used;
  return result;
}

export async function execCommand(args: ExecCommandArgs, ctx: ExecToolContext, call: CallControl): Promise<ExecOutcome> {
  const cwd = resolveWorkdir(args.workdir, ctx.defaultWorkdir);
  const yieldMs = clampYield(args.yield_time_ms, EXEC_DEFAULT_YIELD_MS, ctx.maxYieldMs);
  const timeoutMs = Math.min(Math.ceil(args.timeout_ms ?? ctx.maxExecTimeoutMs), ctx.maxExecTimeoutMs);
  const session = await ctx.engine.start({ cmd: args.cmd, cwd, timeoutMs, owner: ctx.owner, agentId: ctx.agentId(), env: ctx.sessionEnv() });
  try {
    const report = await collectWithProgress(ctx.engine, session, yieldMs, call);
    return { result: withYield(toExecResult(report), args.yield_time_ms, yieldMs), sessionId: session.id };
  } catch (error) {
    // A cancelled call never delivers its handle, so nobody could ever reach this process again.
    if (call.signal.aborted) session.kill('killed');
    throw error;
  }
}

export async function writeStdin(args: WriteStdinArgs, session: Session, ctx: ExecToolContext, call: CallControl): Promise<ExecOutcome> {
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
  const settleMs = args.chars ? ANSWER_SETTLE_MS : undefined;
  const report = await collectWithProgress(ctx.engine, session, yieldMs, call, settleMs);
  return { result: withYield(toExecResult(report), args.yield_time_ms, yieldMs), sessionId: session.id };
}

// How a write_stdin call is described in the history: never the typed text itself.
export function describeWriteStdin(args: WriteStdinArgs): string {
  if (args.kill_process) return 'kill';
  if (args.chars) return `input (${[...args.chars].length} characters)`;
  return 'poll';
}

async function collectWithProgress(engine: ExecEngine, session: Session, yieldMs: number, call: CallControl, answerSettleMs?: number): Promise<SessionReport> {
  const progress = call.progress;
  const options = { answerSettleMs, untilInput: true };
  if (!progress || yieldMs <= PROGRESS_INTERVAL_MS) return engine.collect(session, yieldMs, call.signal, options);
  const timer = setInterval(() => {
    progress(`still running after ${formatSeconds(Date.now() - session.startedAt)}`);
  }, PROGRESS_INTERVAL_MS);
  try {
    return await engine.collect(session, yieldMs, call.signal, options);
  } finally {
    clearInterval(timer);
  }
}

const signalNames = new Map<number, string>(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));

export function toExecResult(report: SessionReport): ExecResult {
  // Reading order: the start of what is new, what is left out, then its end.
  const result: ExecResult = {
    summary: report.summary,
    ...(report.outputHead !== undefined ? { output_head: report.outputHead } : {}),
    ...(report.outputOmitted !== undefined ? { output_omitted: report.outputOmitted } : {}),
    output: report.output,
    output_offset: report.outputOffset,
    status: report.status,
    cwd: report.cwd,
  };
  if (report.handle !== undefined) result.session_handle = report.handle;
  if (report.waitingForInput !== undefined) result.waiting_for_input = report.waitingForInput;
  if (report.exitCode !== undefined) result.exit_code = report.exitCode;
  if (report.terminationReason !== undefined) result.termination_reason = report.terminationReason;
  if (report.signal !== undefined) result.signal = signalNames.get(report.signal) ?? `signal ${report.signal}`;
  if (report.spill) {
    if (report.spill.file !== undefined) result.output_file = report.spill.file;
    result.output_chars = report.spill.chars;
    result.output_lines = report.spill.lines;
    result.output_file_truncated = report.spill.truncated;
    if (report.spill.error !== undefined) result.output_file_error = report.spill.error;
    if (report.spill.tailFile !== undefined) result.output_tail_file = report.spill.tailFile;
    if (report.spill.tailOffset !== undefined) result.output_tail_file_offset = report.spill.tailOffset;
  }
  return result;
}
