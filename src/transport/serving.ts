// The contract between a transport and the layers above it: the transport takes a factory that
// opens one MCP conversation per stdio connection or HTTP session, and hands back something
// closable. The process's lifetime (signals, drain order, exit) is app/'s, never a transport's.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface OpenedConversation {
  connect(transport: Transport): Promise<void>;
  // Kills the conversation's commands, ends its agent and closes its server.
  close(): Promise<void>;
}

// Builds the conversation with this id (a stdio connection, an HTTP session).
// principal: who opened it (an OAuth grant id, else 'static'); only it may use its handles.
export type ConversationFactory = (id: string, principal?: string) => OpenedConversation;

export interface Serving {
  // Stops serving: closes every conversation and, for HTTP, the listener and its connections.
  close(reason: string): Promise<void>;
}
