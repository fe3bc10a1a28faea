// zodexd's log lines, formatted here and nowhere else: `text` (the default, `zodexd: message` on
// stderr, as always) or `json` (--log-format json: one object per line with time, level, message
// and, where they apply, the agent, a handle's first characters and the request id), for a fleet's
// log collector. Flow: a layer calls log(message, fields?) -> the logger redacts known secrets,
// escapes control, format and separator characters with the one function every client-supplied
// text passes (errors.ts escapeControls: it can never start a line, move a terminal's cursor or
// hide text) -> one line to the sink.

import { escapeControls } from './errors.js';

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

const unchanged = (text: string) => text;

export function levelOf(message: string, fields: LogFields | undefined): LogLevel {
  return fields?.level ?? (/^warning\b/i.test(message) ? 'warn' : 'info');
}

// One line in the chosen format, without its '\n'.
export function formatLine(
  format: LogFormat,
  message: string,
  fields: LogFields | undefined,
  time: Date,
  redact: (text: string) => string = unchanged,
): string {
  const shown = (value: string) => escapeControls(redact(value));
  const text = shown(message);
  if (format === 'text') return `zodexd: ${text}`;
  const line: Record<string, string | number> = { time: time.toISOString(), level: levelOf(message, fields), message: text };
  if (fields?.agent !== undefined) line.agent = shown(fields.agent);
  if (fields?.handle !== undefined) line.handle = fields.handle.slice(0, HANDLE_PREFIX_CHARS);
  if (fields?.request !== undefined) line.request = typeof fields.request === 'number' ? fields.request : shown(fields.request.slice(0, REQUEST_ID_MAX_CHARS));
  if (fields?.session !== undefined) line.session = shown(fields.session);
  return JSON.stringify(line);
}

export function createLogger(options: LoggerOptions): Log {
  const now = options.now ?? (() => new Date());
  return (message, fields) => options.write(`${formatLine(options.format, message, fields, now(), options.redact)}\n`);
}
