// The tools a zodexd serves, composed: the core's three (tools/index.ts), then in Local mode the
// features' own, each loaded only then: set_agent_alias (features/liveboard), which labels the
// agent in the store. Their names are known first (the ops metrics' series exist from the start);
// the tools are bound to the store once createRuntime has opened it.

import type { Store } from '../features/store/index.js';
import type { Mode } from '../server/options.js';
import { TOOLS, type Tool } from '../tools/index.js';

export interface ServedTools {
  names: readonly string[];
  // The tools served after the core's three (ServerRuntime.extraTools).
  extra(store: Pick<Store, 'setAlias' | 'agent'>): readonly Tool[];
}

export async function servedTools(mode: Mode): Promise<ServedTools> {
  const core = TOOLS.map((tool) => tool.name);
  if (mode !== 'local') return { names: core, extra: () => [] };
  const { SET_AGENT_ALIAS, setAgentAliasTool } = await import('../features/liveboard/set_agent_alias.js');
  return { names: [...core, SET_AGENT_ALIAS], extra: (store) => [setAgentAliasTool(store)] };
}
