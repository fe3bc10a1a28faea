// exec_command: its input schema and description, and the handler: resolve the workdir, clamp
// the yield (to --max-yield-ms) and the timeout, start the command, wait, shape the result.
// A cancelled exec_command kills its command: nobody ever received its handle.

import { z } from 'zod';
import {
  EXEC_DEFAULT_YIELD_MS,
  PROGRESS_INTERVAL_MS,
  execResultShape,
  formatBytes,
  typed,
  workdirField,
  yieldField,
  type ExecResult,
  type SchemaLimits,
} from './schemas.js';
import { clampYield, collectWithProgress, toExecResult, withYield } from './exec-result.js';
import { recordedField, rejectedCall, tool, type ToolContext } from './tool.js';
import { resolveWorkdir } from './workdir.js';

export function execCommandInput(limits: SchemaLimits) {
  return {
    cmd: z
      .string(typed('cmd', 'a string', 'the shell command line to run, e.g. "ls -la"'))
      .min(1, 'INVALID_VALUE: `cmd` is empty: pass the command line to run, e.g. "ls -la"')
      .describe("Shell command line, run by the user's login shell as `SHELL -c cmd` in a pseudo-terminal (stdin, stdout and stderr are the terminal)."),
    workdir: workdirField(limits, 'to run the command in'),
    yield_time_ms: yieldField(EXEC_DEFAULT_YIELD_MS, limits.maxYieldMs),
    timeout_ms: z
      .number(typed('timeout_ms', 'a number', 'the command is killed after this many milliseconds'))
      .positive('INVALID_VALUE: `timeout_ms` must be positive: the command is killed after this many milliseconds')
      .optional()
      .describe(`Kill the command (its whole process group) after this many ms. Default and maximum ${limits.maxExecTimeoutMs}; larger values are capped.`),
  };
}

export function describeExecCommand(limits: SchemaLimits): string {
  return [
    'Run a shell command.',
    `Runs cmd in a pseudo-terminal in workdir and returns when it exits, when it waits for terminal input, or after yield_time_ms (default ${Math.min(EXEC_DEFAULT_YIELD_MS, limits.maxYieldMs)}, at most ${limits.maxYieldMs}), whichever is first.`,
    'If it is still running, the result has status "running" and a session_handle: call write_stdin with it to poll, type input or kill;',
    'waiting_for_input: true means it is asking for input (a prompt or password question): answer with write_stdin chars.',
    'Output is stdout and stderr interleaved as the terminal saw them, with ANSI escape sequences removed and "\\r\\n" turned into "\\n".',
    'A line redrawn with "\\r" (a progress bar) is shown in its last state only.',
    `When a command prints more than ${formatBytes(limits.inlineLimitBytes)}, the whole stream goes to a private file (output_file, first ${formatBytes(limits.spillCapBytes)} kept; past that, the last ${formatBytes(limits.tailFileBytes)} in output_tail_file)`,
    `and what is new is shown whole if it fits ${formatBytes(limits.previewBytes)}, else as output_head (its first ${formatBytes(limits.headBytes)}), output_omitted (one line: the lines and bytes between, and the sed command that reads them) and output (its last lines);`,
    "output_chars and output_lines count the whole stream. Read the file with later commands, e.g. `sed -n '1,200p' FILE`, `tail -n 100 FILE` or `grep -n PATTERN FILE`.",
    'output_offset counts the stream bytes delivered so far: write_stdin since_offset delivers again from an offset, so a lost reply loses no output.',
    `timeout_ms (default and maximum ${limits.maxExecTimeoutMs}) kills the command and everything it started.`,
    'Commands see TERM=dumb, NO_COLOR=1, PAGER=cat and GIT_PAGER=cat, and a terminal with output post-processing off.',
    `If the request carries a progressToken, a progress notification is sent every ${PROGRESS_INTERVAL_MS / 1000} s while waiting; most clients do not extend their request timeout for it,`,
    `so no call waits longer than ${limits.maxYieldMs} ms: for a longer command, keep polling with write_stdin.`,
    'Unknown argument names, a NUL in cmd or workdir and unpaired surrogates are refused with an error naming the field; nothing runs.',
  ].join(' ');
}

export interface ExecCommandArgs {
  cmd: string;
  workdir?: string | undefined;
  yield_time_ms?: number | undefined;
  timeout_ms?: number | undefined;
}

// A result and the (opaque) id of the session it came from, for the records.
export interface ExecOutcome {
  result: ExecResult;
  sessionId: string;
}

export async function execCommand(args: ExecCommandArgs, ctx: ToolContext): Promise<ExecOutcome> {
  const { call } = ctx;
  const cwd = resolveWorkdir(args.workdir, ctx.defaultWorkdir);
  const yieldMs = clampYield(args.yield_time_ms, EXEC_DEFAULT_YIELD_MS, ctx.maxYieldMs);
  const timeoutMs = Math.min(Math.ceil(args.timeout_ms ?? ctx.maxExecTimeoutMs), ctx.maxExecTimeoutMs);
  const session = await ctx.engine.start({
    cmd: args.cmd,
    cwd,
    timeoutMs,
    owner: ctx.owner,
    leased: ctx.leased,
    principal: ctx.principal,
    agentId: ctx.agentId(),
    env: ctx.sessionEnv(),
  });
  try {
    const report = await collectWithProgress(ctx.engine, session, yieldMs, call);
    return { result: withYield(toExecResult(report), args.yield_time_ms, yieldMs), sessionId: session.id };
  } catch (error) {
    // A cancelled call never delivers its handle, so nobody could ever reach this process again.
    if (call.signal.aborted) session.kill('killed');
    throw error;
  }
}

export const execCommandTool = tool({
  name: 'exec_command',
  title: 'Run a shell command',
  description: describeExecCommand,
  input: execCommandInput,
  output: execResultShape,
  record: (args, ctx) => ({ tool: 'exec_command', workdir: args.workdir ?? ctx.defaultWorkdir, summary: args.cmd }),
  rejected: (raw) => rejectedCall('exec_command', raw, recordedField(raw, 'cmd')),
  run: async (args, ctx) => ({ kind: 'exec', ...(await execCommand(args, ctx)) }),
});
