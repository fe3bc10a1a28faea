// What zodexd tells a person who started it on a terminal: over stdio it waits for an MCP
// client's JSON-RPC on stdin, so it says so on stderr, with the client config that starts it
// and the HTTP alternative. Nothing of it goes to stdout, the protocol stream.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The zodexd bin (src/cli/zodexd.ts once built), named by path: app/ imports nothing from cli/.
const ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'cli', 'zodexd.js');

export function terminalHint(entry: string = ENTRY): string[] {
  const config = JSON.stringify({ mcpServers: { zodex: { command: 'node', args: [entry] } } });
  return [
    'serving MCP over stdio: waiting for an MCP client to send JSON-RPC on stdin (this is a terminal; Ctrl-D or Ctrl-C quits).',
    `An MCP client should start zodexd itself, e.g. with this config: ${config}`,
    `(Claude Code: claude mcp add zodex -- node ${entry}). For a client that dials a URL: zodexd --transport http`,
  ];
}
