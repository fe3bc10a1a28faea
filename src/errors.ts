// Typed errors with stable codes, the registry of every code a tool result may carry, and the
// bounded quoting every error text uses for inputs. Every layer throws ZodexError;
// server/results.ts is the one place that turns them into MCP results ("CODE: message").

// The codes the MCP surface can emit, each with its meaning. A ZodexError whose code is not
// here reaches the model as INTERNAL. Add codes here (one line each) when a tool gains one.
export const ERROR_CODES = {
  // input validation (tools/validate.ts): the call is rejected before anything runs
  UNKNOWN_ARGUMENT: 'an argument name the tool does not have (the text names the nearest valid one)',
  MISSING_ARGUMENT: 'a required argument is absent',
  INVALID_TYPE: 'an argument has the wrong JSON type',
  INVALID_VALUE: 'an argument has the right type but a value the tool cannot take (e.g. an empty cmd)',
  INVALID_UNICODE: 'a string argument holds an unpaired UTF-16 surrogate, which cannot be encoded as UTF-8',
  NUL_CHARACTER: 'a string argument holds a NUL character where none can be carried (a command line, a path)',
  INVALID_ARGUMENT: 'a combination of arguments that cannot be honoured together',
  // workdir (tools/workdir.ts)
  WORKDIR_REQUIRED: 'no workdir was given and the server has no default',
  WORKDIR_NOT_ABSOLUTE: 'workdir is a relative path',
  WORKDIR_NOT_FOUND: 'workdir does not exist',
  WORKDIR_NOT_A_DIRECTORY: 'workdir exists but is not a directory',
  // sessions and the exec engine
  UNKNOWN_SESSION: 'session_handle names no running session of this server',
  SESSION_LIMIT: 'the server already runs its maximum number of sessions',
  SESSION_EXITED: 'the session has ended; its handle is spent',
  SPAWN_FAILED: 'the shell could not be started',
  SHUTTING_DOWN: 'the server is draining and starts no new commands',
  CANCELLED: 'the client cancelled the call; nothing was reported or taken (clients discard this result)',
  SINCE_OFFSET_INVALID: 'write_stdin since_offset is not a whole number of bytes, 0 or more',
  SINCE_OFFSET_AHEAD: 'write_stdin since_offset is past the end of the stream so far',
  SINCE_OFFSET_NOT_RETAINED: 'write_stdin since_offset points into the part of the stream that was not kept',
  // apply_patch
  PATCH_PARSE: 'the patch text is malformed; nothing was applied',
  FILE_CHANGED_DURING_PATCH: 'another process wrote a file while apply_patch was replacing it; that operation was not applied',
  // set_agent_alias (store)
  ALIAS_TOO_LONG: 'the alias is longer than 80 characters',
  UNKNOWN_AGENT: 'the conversation has no Agent ID in the store',
  UNKNOWN_TOOL: 'tools/call named a tool this server does not have',
  // anything else
  INTERNAL: 'an unexpected failure inside zodexd (logged on its stderr)',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

export class ZodexError extends Error {
  constructor(
    readonly code: ErrorCode | (string & {}),
    message: string,
  ) {
    super(message);
    this.name = 'ZodexError';
  }
}

export function errorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return undefined;
}

// A JSON value's kind for error texts: "null", "an array", "an object", "a number"... (1e400
// parses to Infinity, which no numeric argument takes: said as such).
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isFinite(value)) return `${value} (a number too large for a double)`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

// How many characters of an input an error text quotes.
export const QUOTE_MAX_CHARS = 200;

// Where a quote of `value` ends: at most `max` UTF-16 units, never splitting a surrogate pair.
function cutAt(value: string, max: number): number {
  if (value.length <= max) return value.length;
  const last = value.charCodeAt(max - 1);
  return last >= 0xd800 && last <= 0xdbff ? max - 1 : max;
}

function more(value: string, end: number): string {
  return end === value.length ? '' : `… and ${(value.length - end).toLocaleString('en-US')} more characters`;
}

// At most `max` characters of `value`, then how many more there were:
// "abc… and 999,800 more characters". For texts that put their own quotes around it.
export function clipText(value: string, max = QUOTE_MAX_CHARS): string {
  const end = cutAt(value, max);
  return `${value.slice(0, end)}${more(value, end)}`;
}

// An input as a JSON string literal (control characters, NUL and lone surrogates escaped),
// bounded like clipText: the one way error texts quote a value.
export function quote(value: string, max = QUOTE_MAX_CHARS): string {
  const end = cutAt(value, max);
  return `${JSON.stringify(value.slice(0, end))}${more(value, end)}`;
}
