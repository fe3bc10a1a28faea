// zodexd's log lines, formatted here and nowhere else: `text` (the default, `zodexd: message` on
// stderr, as always) or `json` (--log-format json: one object per line with time, level, message
// and, where they apply, the agent, a handle's first characters and the request id), for a fleet's
// log collector. Flow: a layer calls log(message, fields?) -> the logger redacts known secrets,
// escapes control characters (a client-supplied value can never start a line or move a terminal's
// cursor) -> one line to the sink.

export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export type LogLevel = 'info' | 'warn' | 'error';

// What a line may say beside its message, each only where it applies.
export interface LogFields {
  level?: LogLevel; // default: warn for a message starting "warning:", else info
  agent?: string; // the Agent ID
  handle?: string; // a session handle: only its first HANDLE_PREFIX_CHARS are ever written
  request?: string | number; // the JSON-RPC request id
  session?: string; // an HTTP session (Mcp-Session-Id)
}

// Every layer logs through this; a plain (message) => void fits it too.
export type Log = (message: string, fields?: LogFields) => void;

// A handle is a capability: a log line carries enough of it to tell sessions apart, never enough
// to use it (the handle has at least 128 random bits; 6 characters are 36 of them).
export const HANDLE_PREFIX_CHARS = 6;
// A request id is the client's; a longer one is cut.
const REQUEST_ID_MAX_CHARS = 64;

export interface LoggerOptions {
  format: LogFormat;
  write: (line: string) => void; // one whole line, with its '\n'
  // Replaces every known secret value in a text (the registry of src/secrets.ts): applied to the
  // message and to every field a client supplied.
  redact?: (text: string) => string;
  now?: () => Date;
}

// C0 controls but tab and newline, DEL, the C1 controls, and the two Unicode line separators.
const TEXT_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
// What JSON.stringify leaves raw and a terminal or a line reader still acts on.
const JSON_LEFTOVERS = /[\u007f-\u009f\u2028\u2029]/g;

const hex = (char: string, width: number) => char.charCodeAt(0).toString(16).padStart(width, '0');

// A message for the text format: control characters as \xNN (\uNNNN beyond 0xff), so a value a
// client chose can neither forge a line nor drive the terminal that shows stderr.
export function escapeForText(text: string): string {
  return text.replace(TEXT_CONTROLS, (char) => (char.charCodeAt(0) > 0xff ? `\\u${hex(char, 4)}` : `\\x${hex(char, 2)}`));
}

const unchanged = (text: string) => text;

export function levelOf(message: string, fields: LogFields | undefined): LogLevel {
  return fields?.level ?? (/^warning\b/i.test(message) ? 'warn' : 'info');
}

// One line in the chosen format, without its '\n'.
export function formatLine(format: LogFormat, message: string, fields: LogFields | undefined, time: Date, redact: (text: string) => string = unchanged): string {
  const text = redact(message);
  if (format === 'text') return `zodexd: ${escapeForText(text)}`;
  const line: Record<string, string | number> = { time: time.toISOString(), level: levelOf(message, fields), message: text };
  if (fields?.agent !== undefined) line.agent = redact(fields.agent);
  if (fields?.handle !== undefined) line.handle = fields.handle.slice(0, HANDLE_PREFIX_CHARS);
  if (fields?.request !== undefined) line.request = typeof fields.request === 'number' ? fields.request : redact(fields.request.slice(0, REQUEST_ID_MAX_CHARS));
  if (fields?.session !== undefined) line.session = redact(fields.session);
  return JSON.stringify(line).replace(JSON_LEFTOVERS, (char) => `\\u${hex(char, 4)}`);
}

export function createLogger(options: LoggerOptions): Log {
  const now = options.now ?? (() => new Date());
  return (message, fields) => options.write(`${formatLine(options.format, message, fields, now(), options.redact)}\n`);
}
