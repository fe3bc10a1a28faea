// The one place where thrown errors become MCP results: an isError result "CODE: message" for a
// ZodexError whose code is in the registry (errors.ts); anything else (a leaked ENOENT, a bug)
// is logged and reaches the model as INTERNAL, never as a code it might act on.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ZodexError, clipText, isErrorCode } from '../errors.js';
import type { Log } from '../log.js';

// An internal error's text keeps at most this much of the message (it may quote anything).
const INTERNAL_MESSAGE_MAX_CHARS = 500;

export function errorResult(error: unknown, log: Log): CallToolResult {
  if (error instanceof ZodexError && isErrorCode(error.code)) {
    return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
  }
  const message = error instanceof Error ? error.message : String(error);
  log(`internal error in a tool call: ${clipText(error instanceof Error ? (error.stack ?? message) : message, 4_000)}`, { level: 'error' });
  const text = `INTERNAL: ${clipText(message, INTERNAL_MESSAGE_MAX_CHARS)} (an unexpected failure inside zodexd; its log has the details)`;
  return { content: [{ type: 'text', text }], isError: true };
}
