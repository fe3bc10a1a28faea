// The memory mirror of this process's own agents: ids stay unique and agent()/agents() still
// answer, aliases included, after the database failed (or when it never opened).

import type { AgentRow, AliasSetter } from './types.js';

export class AgentMirror {
  private readonly agents = new Map<string, AgentRow>();

  constructor(private readonly now: () => number) {}

  has(agentId: string): boolean {
    return this.agents.has(agentId);
  }

  add(agentId: string, serverId: string): void {
    this.agents.set(agentId, {
      agentId,
      alias: '',
      aliasSetAt: null,
      aliasSetBy: null,
      serverId,
      startedAt: this.now(),
      endedAt: null,
      live: true,
      invocations: 0,
      lastInvocationAt: null,
    });
  }

  end(agentId: string): void {
    const own = this.agents.get(agentId);
    if (own && own.endedAt === null) Object.assign(own, { endedAt: this.now(), live: false });
  }

  endAll(): void {
    for (const agent of this.agents.values()) if (agent.endedAt === null) agent.endedAt = this.now();
  }

  // The latest alias wins, as in the database (value already normalized, `at` when it was set).
  setAlias(agentId: string, alias: string, at: number, by: AliasSetter): void {
    const own = this.agents.get(agentId);
    if (own && (own.aliasSetAt === null || own.aliasSetAt <= at)) Object.assign(own, { alias, aliasSetAt: at, aliasSetBy: by });
  }

  // Copies, live unless ended or the store is closed.
  list(closed: boolean): AgentRow[] {
    return [...this.agents.values()].map((agent) => ({ ...agent, live: agent.endedAt === null && !closed }));
  }
}
