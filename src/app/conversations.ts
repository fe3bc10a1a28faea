// The conversation factory the transports take: each stdio connection or HTTP session gets its
// own Conversation (agent, records, zodex_context) and MCP server over the shared runtime.
// Closing it kills its commands, ends its agent and closes its server.

import { Conversation } from '../server/conversation.js';
import type { ServerRuntime } from '../server/options.js';
import { createMcpServer } from '../server/server.js';
import type { ConversationFactory } from '../transport/serving.js';

export function conversationFactory(runtime: ServerRuntime): ConversationFactory {
  return (id, principal) => {
    const conversation = new Conversation(runtime, id, principal);
    const server = createMcpServer(runtime, conversation);
    let closed = false;
    return {
      connect: (transport) => server.connect(transport),
      async close() {
        if (closed) return;
        closed = true;
        conversation.close();
        await server.close().catch(() => {});
      },
    };
  };
}
