// The one place where tool outcomes become MCP results: structured results carry the same JSON
// as their first text block; every thrown error becomes an isError result "CODE: message".

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorCode } from '../errors.js';

export function structuredResult(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}

export function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

export function errorResult(error: unknown, log: (message: string) => void): CallToolResult {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code && /^[A-Z][A-Z_]+$/.test(code)) return textResult(`${code}: ${message}`, true);
  log(`internal error in a tool call: ${error instanceof Error ? (error.stack ?? message) : message}`);
  return textResult(`INTERNAL: ${message}`, true);
}

// Runs a tool body and maps whatever it throws.
export async function guarded(body: () => Promise<CallToolResult>, log: (message: string) => void): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return errorResult(error, log);
  }
}
