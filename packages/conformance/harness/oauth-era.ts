// The MCP endpoint of an OAuth server in the project's era: the first request a client of that
// era sends (2025-11-25: initialize; 2026-07-28: server/discover), and a tool caller bound to one
// bearer token (2025-11-25: a session opened with it; 2026-07-28: one POST per call, no session).

import { modernHeaders } from './modern.js';
import { mcpStatus, modernStatus, type OAuthServer } from './oauth.js';
import { messagesOf, modernRequest, type ModernReply } from './raw-modern.js';
import { INITIALIZE, MCP_HEADERS, type RawResponse } from './raw-http.js';
import type { Protocol } from './target.js';

// What the era's opening request gets with this bearer token (or none).
export function endpoint(protocol: Protocol): (srv: OAuthServer, token?: string) => Promise<RawResponse> {
  return protocol === 'modern' ? modernStatus : mcpStatus;
}

export type ToolCaller = (name: string, args: Record<string, unknown>, token?: string) => Promise<{ status: number; reply: ModernReply | undefined }>;

const bearer = (token: string | undefined): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});

// A caller that speaks as one client of `protocol` opened with `token`; a later call may present
// another token (the attack the binding is about): legacy sends it on the same session, modern
// with the same _meta conversation id.
export async function toolCaller(srv: OAuthServer, protocol: Protocol, token: string): Promise<ToolCaller> {
  let id = 10;
  if (protocol === 'modern') {
    const meta = { threadId: `oauth-era-${Date.now()}` };
    return async (name, args, as = token) => {
      const message = modernRequest(id++, 'tools/call', { name, arguments: args }, meta);
      const response = await srv.request('/mcp', {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...modernHeaders(message), ...bearer(as) },
        body: JSON.stringify(message),
      });
      return { status: response.status, reply: messagesOf(response).find((m) => m.result !== undefined || m.error !== undefined) };
    };
  }
  const opened = await mcpStatus(srv, token);
  if (opened.status !== 200) throw new Error(`initialize: ${opened.status} ${opened.body}`);
  const session = { 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
  await srv.request('/mcp', {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...session, ...bearer(token) },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return async (name, args, as = token) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } });
    const response = await srv.request('/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...session, ...bearer(as) }, body });
    return { status: response.status, reply: messagesOf(response).find((m) => m.result !== undefined || m.error !== undefined) };
  };
}

// The era's opening request as rawRequest options (for requests that need their own headers).
export function opening(protocol: Protocol, headers: Record<string, string> = {}): { method: 'POST'; headers: Record<string, string>; body: string } {
  if (protocol === 'legacy') return { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE() };
  const message = modernRequest(1, 'server/discover');
  return { method: 'POST', headers: { ...MCP_HEADERS, ...modernHeaders(message), ...headers }, body: JSON.stringify(message) };
}
