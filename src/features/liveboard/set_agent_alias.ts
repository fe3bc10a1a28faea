// set_agent_alias, the tool Local mode adds to the core's three (app/tools.ts): its input and
// output schemas and description, and the handler, which labels the conversation's Agent ID in the
// store, as the Liveboard shows it. An alias change is not an invocation (never in the timeline);
// a rejected call is recorded like any other.

import { z } from 'zod';
import { typed } from '../../tools/schemas.js';
import { rejectedCall, tool, type Tool } from '../../tools/tool.js';
import { ALIAS_MAX_CHARS, aliasTooLongMessage } from '../store/identity.js';
import type { Store } from '../store/index.js';

export function setAgentAliasInput() {
  return {
    alias: z
      .string(typed('alias', 'a string', 'a short label such as "Rindle implementation", or "" to clear it'))
      .refine((alias) => [...alias].length <= ALIAS_MAX_CHARS, {
        error: (issue) => `ALIAS_TOO_LONG: ${aliasTooLongMessage([...String(issue.input)].length)}`,
      })
      .meta({ maxLength: ALIAS_MAX_CHARS })
      .describe(`A 2-7 word label for this conversation, at most ${ALIAS_MAX_CHARS} characters; "" clears it.`),
  };
}

export function aliasResultShape() {
  return {
    agent_id: z.string().describe("This conversation's four-character Agent ID."),
    alias: z.string().describe('The alias now shown in Liveboard ("" when cleared).'),
  };
}

export const SET_AGENT_ALIAS_DESCRIPTION = [
  'Label the current conversation in Liveboard.',
  'Give a short, descriptive 2-7 word label for what this Agent is doing, such as "Rindle implementation", and update it when the main task changes.',
  'Optional; it changes no routing, permission or history, and is not recorded in the execution timeline.',
].join(' ');

export const SET_AGENT_ALIAS = 'set_agent_alias';

// The tool, labelling agents in `store`.
export const setAgentAliasTool = (store: Pick<Store, 'setAlias' | 'agent'>): Tool =>
  tool({
    name: SET_AGENT_ALIAS,
    title: 'Label this conversation in Liveboard',
    description: () => SET_AGENT_ALIAS_DESCRIPTION,
    input: setAgentAliasInput,
    output: aliasResultShape,
    rejected: (raw) => rejectedCall(SET_AGENT_ALIAS, raw, typeof raw.alias === 'string' ? `alias (${[...raw.alias].length} characters)` : '(no alias)'),
    run: async (args, ctx) => {
      const agentId = ctx.agentId();
      store.setAlias(agentId, args.alias, 'agent');
      const alias = store.agent(agentId)?.alias ?? '';
      const text = alias ? `Agent ${agentId} is now labelled ${JSON.stringify(alias)} in Liveboard.` : `Agent ${agentId} has no alias now.`;
      return { kind: 'text', text, isError: false, structured: { agent_id: agentId, alias } };
    },
  });
