// What exec_command and write_stdin share: the clamped yield, the wait with progress
// notifications, and the engine's report shaped into the one result both return.
// Flow: handler -> collectWithProgress (engine.collect) -> toExecResult -> ExecResult.

import os from 'node:os';
import type { ExecEngine } from '../exec/engine.js';
import type { ExecSession, ExecSessionReport, WaitOptions } from '../exec/session.js';
import { formatSeconds } from '../exec/summary.js';
import { PROGRESS_INTERVAL_MS, type ExecResult } from './schemas.js';
import type { CallControl } from './tool.js';

// The wait a call gets: yield_time_ms within 0..max (the default also capped), whole ms.
export function clampYield(value: number | undefined, fallback: number, max: number): number {
  if (value === undefined || Number.isNaN(value)) return Math.min(fallback, max);
  return Math.round(Math.min(max, Math.max(0, value)));
}

// The result names the wait used when it differs from the one asked for.
export function withYield(result: ExecResult, asked: number | undefined, used: number): ExecResult {
  if (asked !== undefined && asked !== used) result.yield_time_ms = used;
  return result;
}

// settle: when the wait ends early on output (an answer to typed input, or a poll's new output).
export async function collectWithProgress(
  engine: ExecEngine,
  session: ExecSession,
  yieldMs: number,
  call: CallControl,
  settle: Pick<WaitOptions, 'answerSettleMs' | 'outputSettle'> = {},
): Promise<ExecSessionReport> {
  const progress = call.progress;
  const options = { ...settle, untilInput: true };
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

export function toExecResult(report: ExecSessionReport): ExecResult {
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
  if (report.sandboxRefused !== undefined) result.sandbox_refused = report.sandboxRefused;
  if (report.spill) {
    if (report.spill.file !== undefined) result.output_file = report.spill.file;
    result.output_chars = report.spill.chars;
    result.output_lines = report.spill.lines;
    result.output_file_truncated = report.spill.truncated;
    if (report.spill.error !== undefined) result.output_file_error = report.spill.error;
    if (report.spill.tailFile !== undefined) result.output_tail_file = report.spill.tailFile;
    if (report.spill.tailOffset !== undefined) result.output_tail_file_offset = report.spill.tailOffset;
    if (report.spill.removed.length > 0) result.output_files_removed = report.spill.removed;
  }
  return result;
}
