// Plain requests: the JSON-RPC request shape the SDK's strict JSONRPCRequestSchema accepts without
// looking further (its params are loose; only params._meta has a shape of its own). connectServer
// hands such a request straight to the SDK Protocol's request path, past the three zod parses
// its message dispatch runs to tell a response, a request and a notification apart.
// Anything else, and any SDK without that path, goes the SDK's own way.

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

// The members of a JSON-RPC request as the SDK's strict schema allows them.
export const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

export function isPlainRequest(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const message = value as Record<string, unknown>;
  const { id, params } = message;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return false;
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return false;
  for (const key of Object.keys(message)) if (!REQUEST_KEYS.has(key)) return false;
  if (params === undefined) return !Object.hasOwn(message, 'params');
  return params !== null && typeof params === 'object' && !Array.isArray(params) && !Object.hasOwn(params, '_meta');
}

type RequestPath = (request: JSONRPCMessage, extra?: MessageExtraInfo) => void;

// server.connect(transport), then plain requests go straight to the Protocol's request path
// (what its dispatch would pick for them after its parses); the rest to its dispatch.
export async function connectServer(server: McpServer, transport: Transport): Promise<void> {
  const earlier = transport.onmessage; // the SDK's dispatch would call it first: then keep to it
  await server.connect(transport);
  const protocol = server.server as unknown as { _onrequest?: RequestPath };
  const dispatch = transport.onmessage;
  const onrequest = protocol._onrequest;
  if (typeof onrequest !== 'function' || dispatch === undefined || earlier !== undefined) return;
  transport.onmessage = (message, extra) => (isPlainRequest(message) ? onrequest.call(protocol, message, extra) : dispatch(message, extra));
}
