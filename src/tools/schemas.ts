// Zod schemas of every tool's input and of the exec result: the single source for the JSON
// schemas clients see, for runtime validation, and for the TypeScript types of handlers.
// Descriptions carry the defaults and bounds, so a model can act on them.

import { z } from 'zod';
import { describeJsonType } from '../errors.js';
import { ALIAS_MAX_CHARS, aliasTooLongMessage } from '../store/identity.js';
import { WORKDIR_REQUIRED_MESSAGE } from './workdir.js';

export const EXEC_DEFAULT_YIELD_MS = 10_000;
export const WRITE_STDIN_DEFAULT_YIELD_MS = 1_000;
export const PROGRESS_INTERVAL_MS = 5_000;

export interface SchemaLimits {
  maxExecTimeoutMs: number;
  maxYieldMs: number; // --max-yield-ms
  defaultWorkdir: string | undefined;
  inlineLimitBytes: number;
  previewBytes: number;
  headBytes: number;
  tailFileBytes: number;
  spillCapBytes: number;
}

// Error texts carry their registered code as a "CODE: " prefix, which tools/validate.ts turns
// into the result's code; each names its field and says how to fix the call.
// The error option of a typed field: MISSING_ARGUMENT when absent, INVALID_TYPE otherwise.
function typed(field: string, expected: string, hint: string, missing = `MISSING_ARGUMENT: \`${field}\` is required: ${hint}`) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? missing : `INVALID_TYPE: \`${field}\` must be ${expected}, not ${describeJsonType(issue.input)}: ${hint}`,
  };
}

// A byte count as a model reads it: MiB or KiB when exact, else bytes.
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function workdirField(limits: SchemaLimits, purpose: string) {
  const described = `Absolute path of an existing directory ${purpose}. Relative paths, missing or non-directory paths are rejected before anything runs.`;
  const error = typed('workdir', 'a string', 'the absolute path of an existing directory', `WORKDIR_REQUIRED: ${WORKDIR_REQUIRED_MESSAGE}`);
  if (limits.defaultWorkdir !== undefined) {
    return z.string(error).optional().describe(`${described} Optional: defaults to ${limits.defaultWorkdir}.`);
  }
  return z.string(error).describe(`${described} Required.`);
}

const yieldField = (defaultMs: number, maxMs: number) =>
  z
    .number(typed('yield_time_ms', 'a number', 'a number of milliseconds'))
    .optional()
    .describe(
      `How long to wait for the command to finish before returning what it printed so far (ms). ` +
        `Default ${Math.min(defaultMs, maxMs)}; values outside 0-${maxMs} are clamped (the result's yield_time_ms then says what was used). ` +
        'The call returns as soon as the command exits or waits for terminal input.',
    );

export function execCommandInput(limits: SchemaLimits) {
  return {
    cmd: z
      .string(typed('cmd', 'a string', 'the shell command line to run, e.g. "ls -la"'))
      .min(1, 'INVALID_VALUE: `cmd` is empty: pass the command line to run, e.g. "ls -la"')
      .describe('Shell command line, run by the shell as `$SHELL -c cmd` in a pseudo-terminal (stdin, stdout and stderr are the terminal).'),
    workdir: workdirField(limits, 'to run the command in'),
    yield_time_ms: yieldField(EXEC_DEFAULT_YIELD_MS, limits.maxYieldMs),
    timeout_ms: z
      .number(typed('timeout_ms', 'a number', 'the command is killed after this many milliseconds'))
      .positive('INVALID_VALUE: `timeout_ms` must be positive: the command is killed after this many milliseconds')
      .optional()
      .describe(
        `Kill the command (its whole process group) after this many ms. Default and maximum ${limits.maxExecTimeoutMs}; larger values are capped.`,
      ),
  };
}

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
      .describe('true: kill the command and everything it started (SIGKILL to all its descendants, daemons that left with setsid included); the result reports "killed".'),
    since_offset: z
      .number({ error: 'SINCE_OFFSET_INVALID: `since_offset` must be a number: the output_offset of an earlier result' })
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

export function applyPatchInput() {
  return {
    workdir: z
      .string(typed('workdir', 'a string', 'the absolute path of an existing directory', `WORKDIR_REQUIRED: ${WORKDIR_REQUIRED_MESSAGE}`))
      .describe('Absolute path of an existing directory. Relative paths in the patch resolve against it; absolute paths are used as they are.'),
    patch: z
      .string(typed('patch', 'a string', 'pass the patch text, from "*** Begin Patch" to "*** End Patch"'))
      .describe('The patch, from "*** Begin Patch" to "*** End Patch".'),
  };
}

export function execResultShape() {
  return {
    summary: z.string().describe('One line: "exited 0 after 0.3s", "still running after 30.1s; use session_handle H to poll", "timed out after 120.0s" or "killed after 12.6s".'),
    output_head: z
      .string()
      .optional()
      .describe('Once the stream spilled and what is new does not fit output: the first lines of what is new (about 1 KiB); output_omitted says what lies between it and output.'),
    output_omitted: z
      .string()
      .optional()
      .describe("With output_head: one line giving the lines and bytes between output_head and output and the command that reads them, e.g. sed -n 'A,Bp' FILE."),
    output: z
      .string()
      .describe(
        'Terminal output since the previous call on this session, escape sequences removed and each line rewritten with "\\r" (a progress bar) shown in its last state only; once the stream spilled to output_file, its latest tail when what is new does not fit.',
      ),
    output_offset: z
      .number()
      .int()
      .describe('Bytes of the decoded stream delivered up to and including this result (output_file byte offsets; pass it as write_stdin since_offset to get the output again from here).'),
    status: z.enum(['running', 'exited']),
    cwd: z.string().describe('The directory the command runs in.'),
    session_handle: z.string().optional().describe('Present while running: pass it to write_stdin.'),
    waiting_for_input: z
      .boolean()
      .optional()
      .describe(
        'Present while running, on Linux: true when every process of the command is asleep and one waits to read the terminal (a prompt), so the call returned early; answer with write_stdin chars.',
      ),
    yield_time_ms: z.number().int().optional().describe('Present when the requested yield_time_ms was clamped: the wait actually used (ms).'),
    exit_code: z.number().int().optional().describe('Once exited: the exit status (128+N when killed by signal N).'),
    termination_reason: z.enum(['exit', 'timeout', 'killed']).optional(),
    signal: z.string().optional().describe('The signal that ended the command, when one did (e.g. SIGKILL).'),
    output_file: z.string().optional().describe('Private file (0600) holding the whole output stream from its first byte, up to the cap.'),
    output_chars: z.number().int().optional().describe('Unicode code points in the whole stream so far.'),
    output_lines: z.number().int().optional().describe('Lines in the whole stream so far (a last line without newline counts).'),
    output_file_truncated: z.boolean().optional().describe('true once the stream outgrew the file cap: the file holds its first bytes only.'),
    output_file_error: z.string().optional().describe('Why spilling to output_file (or writing output_tail_file) failed; the preview in output still works.'),
    output_tail_file: z
      .string()
      .optional()
      .describe('Once the stream outgrew the file cap: a second private file (0600) holding its last bytes as of this result (about 1 MiB), rewritten at each result.'),
    output_tail_file_offset: z.number().int().optional().describe('The stream offset of output_tail_file\'s first byte: tail -c +K reads stream byte K - 1 + this.'),
    zodex_context: z
      .string()
      .optional()
      .describe("Local mode: the user's AGENTS instructions and skill catalog (first result of a conversation) and a workdir's AGENTS.md hint and skills (first success there)."),
  };
}

const execResultObject = z.object(execResultShape());
export type ExecResult = z.infer<typeof execResultObject>;

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

export function writeStdinDescription(limits: Pick<SchemaLimits, 'maxYieldMs'>): string {
  return [
    'Write to or poll a running session.',
    'Continues a command that exec_command left running: without chars it waits up to yield_time_ms',
    `(default ${Math.min(WRITE_STDIN_DEFAULT_YIELD_MS, limits.maxYieldMs)}, at most ${limits.maxYieldMs}) for the command to finish and returns the output printed since the previous call;`,
    'with chars it types them first and returns as soon as the program has answered (printed something beyond the echo of the input and paused),',
    'so an interactive round trip does not wait out the yield; either way it returns as soon as the command waits for terminal input (waiting_for_input: true).',
    'With kill_process: true it kills the command and everything it started.',
    'since_offset delivers the output again from that stream offset (the output_offset of the last result you received).',
    'Once a result reports status "exited", the handle is spent.',
    `With a progressToken, progress notifications arrive every ${PROGRESS_INTERVAL_MS / 1000} s while waiting; most clients do not extend their request timeout for them.`,
  ].join(' ');
}


export function setAgentAliasInput() {
  return {
    alias: z
      .string(typed('alias', 'a string', 'a short label such as "Rindle implementation", or "" to clear it'))
      .refine((alias) => [...alias].length <= ALIAS_MAX_CHARS, {
        error: (issue) => `ALIAS_TOO_LONG: ${aliasTooLongMessage([...String(issue.input)].length)}`,
      })
      .meta({ maxLength: ALIAS_MAX_CHARS })
      .describe(`A 2-7 word label for this conversation, at most ${ALIAS_MAX_CHARS} characters; "" clears it.`),
  };
}

export function aliasResultShape() {
  return {
    agent_id: z.string().describe("This conversation's four-character Agent ID."),
    alias: z.string().describe('The alias now shown in Liveboard ("" when cleared).'),
  };
}

export const SET_AGENT_ALIAS_DESCRIPTION = [
  'Label the current conversation in Liveboard.',
  'Give a short, descriptive 2-7 word label for what this Agent is doing, such as "Rindle implementation", and update it when the main task changes.',
  'Optional; it changes no routing, permission or history, and is not recorded in the execution timeline.',
].join(' ');

export const APPLY_PATCH_DESCRIPTION = [
  'Apply a Codex-style patch to files.',
  'Format: "*** Begin Patch", then for each file "*** Add File: PATH" (lines prefixed with +), "*** Delete File: PATH",',
  'or "*** Update File: PATH" (optionally "*** Move to: NEW_PATH") followed by chunks that start with "@@" or "@@ <line naming the',
  'function or class>" and hold context lines (prefixed with a space), removed lines (-) and added lines (+); "*** End of File" anchors',
  'a chunk at the end of the file; then "*** End Patch". Give about 3 lines of context around each change.',
  'Each file operation applies atomically and independently: if some fail, the others are still applied and not rolled back;',
  'the error lists the files changed and each failed operation with its reason. Retry only the failed operations after re-reading those files.',
  'Context must match one place only; ambiguous context is an error, never a guess. Relative paths resolve against workdir.',
  'A file another process writes (or holds open for writing) while the patch applies fails that operation with FILE_CHANGED_DURING_PATCH and is left as that process wrote it.',
].join(' ');
