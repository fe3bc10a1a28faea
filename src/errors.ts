// Typed errors with stable codes, the one registry of every code zodex emits (the tool surface's
// and the operator's), and the bounded quoting every error text uses for inputs. Every layer
// throws ZodexError; server/results.ts is the one place that turns them into MCP results.

// Every code zodex emits, each once with its meaning, grouped by where it is emitted. A tool
// result carries only the codes of ERROR_CODES (pinned against docs/errors.md by spec/errors.test.ts);
// a ZodexError whose code is not there reaches the model as INTERNAL. Add a code here (one line)
// and to docs/errors.md when a tool gains one; other modules take their codes' types from here.

// Input validation (tools/validate.ts): the call is rejected before anything runs.
const VALIDATION = {
  UNKNOWN_ARGUMENT: 'an argument name the tool does not have (the text names the nearest valid one)',
  MISSING_ARGUMENT: 'a required argument is absent',
  INVALID_TYPE: 'an argument has the wrong JSON type',
  INVALID_VALUE: 'an argument has the right type but a value the tool cannot take (e.g. an empty cmd)',
  INVALID_UNICODE: 'a string argument holds an unpaired UTF-16 surrogate, which cannot be encoded as UTF-8',
  NUL_CHARACTER: 'a string argument holds a NUL character where none can be carried (a command line, a path)',
  INVALID_ARGUMENT: 'a combination of arguments that cannot be honoured together, or a malformed value',
  UNKNOWN_TOOL: 'tools/call named a tool this server does not have',
} as const;

// workdir (tools/workdir.ts).
const WORKDIR = {
  WORKDIR_REQUIRED: 'no workdir was given and the server has no default',
  WORKDIR_NOT_ABSOLUTE: 'workdir is a relative path',
  WORKDIR_NOT_FOUND: 'workdir does not exist',
  WORKDIR_NOT_A_DIRECTORY: 'workdir exists but is not a directory',
} as const;

// Sessions and the exec engine (UNKNOWN_SESSION also on the Liveboard's control socket).
const SESSION = {
  UNKNOWN_SESSION: 'session_handle names no running session of this server',
  SESSION_LIMIT: 'the server already runs its maximum number of sessions',
  SPAWN_FAILED: 'the shell could not be started',
  SHUTTING_DOWN: 'the server is draining and starts no new commands',
  CANCELLED: 'the client cancelled the call; nothing was reported or taken (clients discard this result)',
  SINCE_OFFSET_INVALID: 'write_stdin since_offset is not a whole number of bytes, 0 or more',
  SINCE_OFFSET_AHEAD: 'write_stdin since_offset is past the end of the stream so far',
  SINCE_OFFSET_NOT_RETAINED: 'write_stdin since_offset points into the part of the stream that was not kept',
} as const;

// apply_patch: one failed file operation, shown as "[CODE]" in the result's list of failures.
const PATCH_OPERATION = {
  CONTEXT_NOT_FOUND: "a chunk's context and removed lines match nowhere in the file",
  AMBIGUOUS_CONTEXT: "a chunk's context matches more than one place in the file",
  OVERLAPPING_CHUNKS: 'two chunks of one file match overlapping regions',
  FILE_NOT_FOUND: 'the file to update or delete does not exist',
  IS_A_DIRECTORY: 'the path names a directory, not a file',
  NOT_A_FILE: 'the path names something other than a regular file (a device, a socket, a FIFO)',
  NOT_UTF8: 'the file is not UTF-8 text',
  READ_FAILED: 'the file could not be read',
  WRITE_FAILED: 'the new contents could not be written',
  DELETE_FAILED: 'the file could not be removed',
  FILE_CHANGED_DURING_PATCH: 'another process wrote a file while apply_patch was replacing it; that operation was not applied',
  SANDBOX_WRITE_DENIED: 'the sandbox (--sandbox) lets nothing write there: outside the workdir, /tmp and the writable roots',
  CREDENTIAL_STORE_DENIED: 'the path is a credential store (or in one) that the write mode keeps from commands and from apply_patch',
} as const;

// set_agent_alias: the store refuses the alias.
const ALIAS = {
  ALIAS_TOO_LONG: 'the alias is longer than 80 characters',
  UNKNOWN_AGENT: 'the conversation has no Agent ID in the store',
} as const;

// The tool surface: every code an MCP tool result can carry.
export const ERROR_CODES = {
  ...VALIDATION,
  ...WORKDIR,
  ...SESSION,
  PATCH_PARSE: 'the patch text is malformed; nothing was applied',
  ...PATCH_OPERATION,
  ...ALIAS,
  INTERNAL: 'an unexpected failure inside zodexd (logged on its stderr)',
} as const;

// The two unix-socket protocols (publisher daemon, Liveboard control socket): a request refused.
const PROTOCOL = {
  BAD_REQUEST: 'a request that is not one line of JSON of a known shape',
  UNSUPPORTED_VERSION: 'a request of a protocol version this side does not speak',
} as const;

// zodex-agent and the publisher daemon: "the rules said no" (history outcome `refused`) ...
const PUBLISHER_REFUSED = {
  WRITE_MODE_READ_ONLY: 'the publisher is in read-only mode: nothing is pushed',
  WRITE_MODE_NO_DIRECT: 'the write mode does not allow pushing to the branch directly',
  WRITE_MODE_MISMATCH: "zodexd's write mode (sent by zodex-agent) and the publisher's differ; the operator starts both with the same one",
  NOT_A_GIT_CHECKOUT: 'the directory is not inside a git checkout',
  DETACHED_HEAD: 'HEAD is detached; a branch must be checked out',
  DIRTY_WORKTREE: 'the checkout has uncommitted changes',
  COMMIT_MISMATCH: 'the branch is not (or no longer) at the commit the request named',
  BRANCH_MISMATCH: 'the checkout is on another branch than the request named',
  INVALID_BRANCH_NAME: 'the branch name is not one git or the rules accept',
  BASE_BRANCH: "the branch is the pull request's base",
  PROTECTED_BRANCH: 'the branch is protected by the publisher config',
  REMOTE_MISSING: 'the checkout has no remote of that name',
  REMOTE_NOT_ALLOWED: 'the remote is not among the allowed repositories',
  NO_TOKEN: 'the publisher was started without a write token',
} as const;

// ... and "we tried and something broke" (outcome `failed`), or the daemon could not start.
const PUBLISHER_FAILED = {
  PUSH_REJECTED: 'the remote refused the push',
  PUSH_FAILED: 'the push could not be made (the remote unreachable, git failed)',
  GITHUB_UNREACHABLE: "GitHub's API gave no answer",
  GITHUB_API_ERROR: "GitHub's API answered with an error",
  ROLLBACK_FAILED: 'a push whose pull request could not be opened could not be undone',
  PUBLISHER_UNREACHABLE: 'zodex-agent could not connect to the publisher socket',
  PUBLISHER_TIMEOUT: 'the publisher gave no complete answer in time',
  PUBLISHER_PROTOCOL: 'the publisher answered something that is not its protocol',
  UNSAFE_SOCKET_FOLDER: "the socket's folder (the publisher's, or zodexd --listen unix:'s) is a symlink, foreign or open to others",
  SOCKET_IN_USE: "the socket path (the publisher's, or zodexd --listen unix:'s) exists and is not a socket, or another process serves it",
  UNSAFE_TOKEN_FILE: 'the token file cannot be opened or is readable by others',
  BAD_TOKEN: 'the token source holds no usable token',
  BAD_CONFIG: 'the publisher config or a daemon option is invalid',
  PEER_REFUSED: "a client of the daemon's own user, or one it cannot identify, is not served",
} as const;

// The store's environment problems (the zodex CLI, zodexd's log; the store then degrades).
const STORE = {
  SCHEMA_TOO_NEW: 'the state database was written by a newer zodex',
  NO_DATABASE: 'a reader (the zodex CLI) found no state database yet',
  STORE_UNAVAILABLE: 'the state database cannot be opened, read or written',
} as const;

// The Liveboard's control sockets (start-up, and the control protocol's answers).
const LIVEBOARD = {
  UNSAFE_CONTROL_FOLDER: 'the control socket folder is a symlink, not ours, or open to other users',
  SOCKET_PATH_TOO_LONG: '<stateDir>/run/<serverId>.sock does not fit a unix socket address',
  BAD_SERVER_ID: 'a server id that is not a plain token',
} as const;
const CONTROL = {
  SESSION_EXITED: 'the session has ended, so it takes no more input or kill (a tool call answers UNKNOWN_SESSION)',
  UNREACHABLE: "a session's zodexd does not answer on its control socket",
} as const;

// zodexd's context options (flags or config file), refused at start.
const CONFIG = { CONFIG_INVALID: 'the context options (flags or config file) are invalid' } as const;

// Codes no tool result carries: the operator's surfaces (zodex, zodex-agent, the sockets, start-up).
export const OPERATOR_CODES = { ...PROTOCOL, ...PUBLISHER_REFUSED, ...PUBLISHER_FAILED, ...STORE, ...LIVEBOARD, ...CONTROL, ...CONFIG } as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export type OperatorCode = keyof typeof OPERATOR_CODES;
export type PatchFailureCode = keyof typeof PATCH_OPERATION;
export type StoreErrorCode = keyof typeof ALIAS | Extract<ErrorCode, 'INVALID_ARGUMENT'> | keyof typeof STORE;
export type LiveboardErrorCode = keyof typeof LIVEBOARD;
export type ControlErrorCode = ProtocolErrorCode | Extract<ErrorCode, 'UNKNOWN_SESSION'> | keyof typeof CONTROL;
export type ProtocolErrorCode = keyof typeof PROTOCOL;
export type PublisherErrorCode = ProtocolErrorCode | keyof typeof PUBLISHER_REFUSED | keyof typeof PUBLISHER_FAILED | 'INTERNAL';
// A publisher code that means "the rules said no" rather than "something broke".
export const PUBLISHER_REFUSAL_CODES: ReadonlySet<PublisherErrorCode> = new Set([...keysOf(PROTOCOL), ...keysOf(PUBLISHER_REFUSED)]);

function keysOf<T extends object>(codes: T): (keyof T)[] {
  return Object.keys(codes) as (keyof T)[];
}

// A code an MCP tool result may carry.
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

// Every layer throws these; the code is always registered (a tool's or an operator surface's).
export class ZodexError extends Error {
  constructor(
    readonly code: ErrorCode | OperatorCode,
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

// What a terminal acts on or what changes how a line reads, beyond what JSON escapes: C0 and C1
// controls and DEL (Cc: ESC starts an OSC 52 clipboard write, CR overwrites the line), format
// characters (Cf: bidirectional overrides, zero-width), lone surrogates, the line and paragraph
// separators.
const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

const escapeUnit = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`;

// `text` with every such character written as a \uXXXX escape: what reaches the operator's
// terminal (and a log file) can neither move the cursor, nor forge a line, nor hide text. The
// log sink passes every line through it; quote() builds on it for values inside a line.
export function escapeControls(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, (found) => Array.from({ length: found.length }, (_, i) => escapeUnit(found.charCodeAt(i))).join(''));
}

// An input as a JSON string literal (quotes, backslashes and every character escapeControls
// escapes written as escapes), bounded like clipText: the one way error texts and log lines
// quote a value a client sent.
export function quote(value: string, max = QUOTE_MAX_CHARS): string {
  const end = cutAt(value, max);
  return `${escapeControls(JSON.stringify(value.slice(0, end)))}${more(value, end)}`;
}

// The valid name closest to `name` by edit distance, if close enough to be a likely typo; a
// valid name that contains it or that it contains (timeout -> timeout_ms), or whose letters it
// holds in order (command -> cmd), counts as close.
export function nearestName(name: string, names: readonly string[]): string | undefined {
  if (name.length > 64) return undefined;
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const contains = lower.length >= 3 && (candidate.includes(lower) || lower.includes(candidate) || isSubsequence(candidate, lower));
    const distance = contains ? 1 : editDistance(lower, candidate);
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  if (best === undefined) return undefined;
  return best.distance <= Math.max(2, Math.floor(best.name.length / 2)) ? best.name : undefined;
}

function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const char of long) if (char === short[i]) i += 1;
  return i === short.length;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
