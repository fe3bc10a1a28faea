// The one place where thrown errors become MCP results: an isError result "CODE: message";
// anything without a stable code is logged as an internal error.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorCode } from '../errors.js';

export function errorResult(error: unknown, log: (message: string) => void): CallToolResult {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code && /^[A-Z][A-Z_]+$/.test(code)) return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true };
  log(`internal error in a tool call: ${error instanceof Error ? (error.stack ?? message) : message}`);
  return { content: [{ type: 'text', text: `INTERNAL: ${message}` }], isError: true };
}

// Runs a tool body and maps whatever it throws.
export async function guarded(body: () => Promise<CallToolResult>, log: (message: string) => void): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return errorResult(error, log);
  }
}
