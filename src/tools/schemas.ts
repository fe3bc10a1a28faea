// The schema pieces the tools share: the limits their descriptions state, the typed-field error
// texts, the workdir and yield fields, and the exec result (exec_command and write_stdin return
// one shape). Each tool's own input schema and description are in its own file.

import { z } from 'zod';
import { describeJsonType } from '../errors.js';
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
export function typed(field: string, expected: string, hint: string, missing = `MISSING_ARGUMENT: \`${field}\` is required: ${hint}`) {
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

// workdir's type error and, when absent, the handler's own WORKDIR_REQUIRED text (workdir.ts).
export const workdirError = () => typed('workdir', 'a string', 'the absolute path of an existing directory', `WORKDIR_REQUIRED: ${WORKDIR_REQUIRED_MESSAGE}`);

export function workdirField(limits: SchemaLimits, purpose: string) {
  const described = `Absolute path of an existing directory ${purpose}. Relative paths, missing or non-directory paths are rejected before anything runs.`;
  const error = workdirError();
  if (limits.defaultWorkdir !== undefined) {
    return z.string(error).optional().describe(`${described} Optional: defaults to ${limits.defaultWorkdir}.`);
  }
  return z.string(error).describe(`${described} Required.`);
}

export const yieldField = (defaultMs: number, maxMs: number) =>
  z
    .number(typed('yield_time_ms', 'a number', 'a number of milliseconds'))
    .optional()
    .describe(
      `The longest the call waits for the command before returning what it printed so far (ms). ` +
        `Default ${Math.min(defaultMs, maxMs)}; values outside 0-${maxMs} are clamped (the result's yield_time_ms then says what was used). ` +
        'The call returns sooner when the command exits or waits for terminal input (and write_stdin, when it has answered or printed something new).',
    );

export function execResultShape() {
  return {
    summary: z
      .string()
      .describe(
        'One line: "exited 0 after 0.3s", "still running after 30.1s; use session_handle H to poll", "timed out after 120.0s" or "killed after 12.6s".',
      ),
    output_head: z
      .string()
      .optional()
      .describe(
        'Once the stream spilled and what is new does not fit output: the first lines of what is new (about 1 KiB); output_omitted says what lies between it and output.',
      ),
    output_omitted: z
      .string()
      .optional()
      .describe(
        "With output_head: one line giving the lines and bytes between output_head and output and the command that reads them, e.g. sed -n 'A,Bp' FILE.",
      ),
    output: z
      .string()
      .describe(
        'Terminal output since the previous call on this session, escape sequences removed and each line rewritten with "\\r" (a progress bar) shown in its last state only; once the stream spilled to output_file, its latest tail when what is new does not fit.',
      ),
    output_offset: z
      .number()
      .int()
      .describe(
        'Bytes of the decoded stream delivered up to and including this result (output_file byte offsets; pass it as write_stdin since_offset to get the output again from here).',
      ),
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
    output_file_error: z
      .string()
      .optional()
      .describe(
        'Why spilling to output_file (or writing output_tail_file) failed, stopped short or was undone (the file removed to keep the spill folder under its cap); the preview in output still works.',
      ),
    output_tail_file: z
      .string()
      .optional()
      .describe(
        'Once the stream outgrew the file cap: a second private file (0600) holding its last bytes as of this result (about 1 MiB), rewritten at each result.',
      ),
    output_tail_file_offset: z
      .number()
      .int()
      .optional()
      .describe("The stream offset of output_tail_file's first byte: tail -c +K reads stream byte K - 1 + this."),
    sandbox_refused: z
      .string()
      .optional()
      .describe(
        'Present when the sandbox (or --sandbox-network off) refused something the command did, in words that name the bound: network connections are counted exactly (at the exit); a refused write is inferred from "Read-only file system" in the output. An error the sandbox did not cause leaves it absent.',
      ),
    output_files_removed: z
      .array(z.string())
      .optional()
      .describe(
        'Spill files of earlier, ended commands (output_file paths other results named) removed, oldest first, to make room for this output in the spill folder since the previous result; they can no longer be read.',
      ),
    zodex_context: z
      .string()
      .optional()
      .describe(
        "Local mode: the user's AGENTS instructions and skill catalog (first result of a conversation) and a workdir's AGENTS.md hint and skills (first success there).",
      ),
  };
}

const execResultObject = z.object(execResultShape());
export type ExecResult = z.infer<typeof execResultObject>;
