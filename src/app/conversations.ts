// The conversation factory the transports take: each stdio connection or HTTP session gets its
// own Conversation (agent, records, zodex_context) and MCP server over the shared runtime; a
// call whose _meta names a conversation runs as that conversation's agent instead (agents).
// Closing it kills its commands, ends its own agent and closes its server.

import { Conversation } from '../server/conversation.js';
import { agentsFromMeta, type AgentTable } from '../server/rev2026-07-28/agents.js';
import type { ServerRuntime } from '../server/options.js';
import { createMcpServer } from '../server/server.js';
import type { ConversationFactory } from '../transport/serving.js';

// agents: the 2026-07-28 era's table, where a 2025 call whose _meta names a conversation finds its agent.
export function conversationFactory(runtime: ServerRuntime, agents?: AgentTable): ConversationFactory {
  return (id, principal) => {
    const conversation = new Conversation(runtime, id, principal);
    const server = createMcpServer(runtime, conversation, agents && agentsFromMeta(agents, conversation, runtime.log));
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
