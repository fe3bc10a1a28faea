// `zodex history`: the invocation timeline of every agent (and the operator's Liveboard
// actions) from the state database, as an aligned table or --json.

import { DEFAULT_HISTORY_LIMIT, isAgentId, MAX_HISTORY_LIMIT, type HistoryRow } from '../../features/store/index.js';
import { CliUsageError, EXIT_OK, type CliIo } from './command.js';
import { resolveStateDir } from '../../app/config/sources.js';
import { cell, jsonRow, localTime, parseDuration, parseFlags, parseLimit, shortDuration, table, tildePath } from './format.js';
import { openForReading } from './state.js';

const SUMMARY_COLUMN_CHARS = 100;
const AGENT_COLUMN_CHARS = 30; // "k7pq " and 25 characters of alias

export const usage = `Usage: zodex history [--agent ID] [--since DURATION] [--limit N] [--json] [--state-dir DIR]

Lists recorded tool invocations (and operator actions from the Liveboard), oldest first.

  --agent ID          only this Agent ID (four characters, see zodex agents)
  --since DURATION    only the last DURATION: e.g. 30m, 2h, 7d (units ms, s, m, h, d, w)
  --limit N           the most recent N rows (default ${DEFAULT_HISTORY_LIMIT})
  --json              a JSON array of rows (times in ISO 8601 UTC) instead of a table
  --state-dir DIR     the state directory (default $XDG_STATE_HOME/zodex)
  -h, --help          this text
`;

const flags = {
  agent: { type: 'string' },
  since: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  'state-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function resultCell(row: HistoryRow): string {
  if (row.terminationReason && row.terminationReason !== 'exit') return row.terminationReason;
  if (row.exitCode !== null) return `exit ${row.exitCode}`;
  return row.status;
}

function agentCell(row: HistoryRow): string {
  const id = row.actor === 'operator' ? `operator${row.agentId ? `→${row.agentId}` : ''}` : (row.agentId ?? '-');
  return cell(row.agentAlias && row.actor === 'agent' ? `${id} ${row.agentAlias}` : id, AGENT_COLUMN_CHARS);
}

export function run(argv: string[], io: CliIo): number {
  const values = parseFlags(argv, flags);
  if (values.help) {
    io.stdout(usage);
    return EXIT_OK;
  }
  let agentId: string | undefined;
  if (values.agent !== undefined) {
    agentId = values.agent.trim().toLowerCase();
    if (!isAgentId(agentId)) throw new CliUsageError(`--agent ${JSON.stringify(values.agent)} is not an Agent ID; list them with zodex agents`);
  }
  const sinceMs = values.since === undefined ? undefined : io.now() - parseDuration('--since', values.since);
  const limit = parseLimit('--limit', values.limit, DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT);
  const stateDir = resolveStateDir(values['state-dir'], io.env);

  const opened = openForReading('history', stateDir, io, () => {
    if (values.json) io.stdout('[]\n');
    else io.stderr(`zodex history: nothing recorded yet (no database in ${stateDir})\n`);
  });
  if (!opened.store) return opened.exitCode;
  let rows: HistoryRow[];
  try {
    rows = opened.store.history({ agentId, sinceMs, limit });
  } finally {
    opened.store.close();
  }

  if (values.json) {
    io.stdout(JSON.stringify(rows.map(jsonRow), null, 2) + '\n');
    return EXIT_OK;
  }
  if (rows.length === 0) {
    io.stderr('zodex history: no invocations match\n');
    return EXIT_OK;
  }
  const now = io.now();
  io.stdout(
    table(
      ['TIME', 'AGENT', 'TOOL', 'DURATION', 'RESULT', 'WORKDIR', 'SUMMARY'],
      rows.map((row) => [
        localTime(row.startedAt),
        agentCell(row),
        row.tool,
        row.durationMs !== null ? shortDuration(row.durationMs) : row.status === 'running' ? `${shortDuration(now - row.startedAt)}+` : '-',
        resultCell(row),
        row.workdir ? tildePath(row.workdir) : '-',
        cell(row.summary, SUMMARY_COLUMN_CHARS) || '-',
      ]),
    ),
  );
  return EXIT_OK;
}
