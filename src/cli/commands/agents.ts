// `zodex agents`: every Agent ID with its alias, whether its conversation is still live, and
// how much it did, from the state database, as an aligned table or --json.

import { MAX_HISTORY_LIMIT, type AgentRow } from '../../features/store/index.js';
import { EXIT_OK, type CliIo } from './command.js';
import { resolveStateDir } from '../../app/config/sources.js';
import { cell, jsonRow, localTime, parseFlags, parseLimit, table } from './format.js';
import { openForReading } from './state.js';

const ALIAS_COLUMN_CHARS = 40;
const DEFAULT_AGENTS_LIMIT = 200; // every stdio conversation is an agent: they add up

export const usage = `Usage: zodex agents [--live] [--limit N] [--json] [--state-dir DIR]

Lists the agents (one per MCP conversation) and their aliases, oldest first.
STATE is live, ended (the conversation closed) or lost (its zodexd died).

  --live              only agents whose conversation is still open
  --limit N           the most recent N agents (default ${DEFAULT_AGENTS_LIMIT})
  --json              a JSON array of rows (times in ISO 8601 UTC) instead of a table
  --state-dir DIR     the state directory (default $XDG_STATE_HOME/zodex)
  -h, --help          this text
`;

const flags = {
  live: { type: 'boolean' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  'state-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function agentState(agent: AgentRow): 'live' | 'ended' | 'lost' {
  return agent.live ? 'live' : agent.endedAt !== null ? 'ended' : 'lost';
}

export function run(argv: string[], io: CliIo): number {
  const values = parseFlags(argv, flags);
  if (values.help) {
    io.stdout(usage);
    return EXIT_OK;
  }
  const limit = parseLimit('--limit', values.limit, DEFAULT_AGENTS_LIMIT, MAX_HISTORY_LIMIT);
  const stateDir = resolveStateDir(values['state-dir'], io.env);
  const opened = openForReading('agents', stateDir, io, () => {
    if (values.json) io.stdout('[]\n');
    else io.stderr(`zodex agents: no agents yet (no database in ${stateDir})\n`);
  });
  if (!opened.store) return opened.exitCode;
  let agents: AgentRow[];
  try {
    agents = opened.store.agents({ liveOnly: values.live ?? false, limit });
  } finally {
    opened.store.close();
  }

  if (values.json) {
    io.stdout(
      JSON.stringify(
        agents.map((agent) => ({ ...jsonRow(agent), state: agentState(agent) })),
        null,
        2,
      ) + '\n',
    );
    return EXIT_OK;
  }
  if (agents.length === 0) {
    io.stderr(`zodex agents: no ${values.live ? 'live ' : ''}agents\n`);
    return EXIT_OK;
  }
  io.stdout(
    table(
      ['AGENT', 'ALIAS', 'STATE', 'STARTED', 'LAST CALL', 'CALLS', 'SERVER'],
      agents.map((agent) => [
        agent.agentId,
        cell(agent.alias, ALIAS_COLUMN_CHARS) || '-',
        agentState(agent),
        localTime(agent.startedAt),
        agent.lastInvocationAt === null ? '-' : localTime(agent.lastInvocationAt),
        String(agent.invocations),
        agent.serverId,
      ]),
    ),
  );
  return EXIT_OK;
}
