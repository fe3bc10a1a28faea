// The server/discover answer and the once-per-client log line of the 2026-07-28 era, as pure pieces
// with no SDK or zod behind them: the Rev2026Server answers with them, and so does the stdio front
// (transport/stdio/front.ts) while the rest of zodexd is still loading.

import { quote } from '../../errors.js';
import { META, SUPPORTED_REV2026_VERSIONS, type Envelope } from './envelope.js';

type Id = string | number;

// tools/list and server/discover change only with zodexd's flags, alike for every caller.
export const LIST_TTL_MS = 300_000;

export interface DiscoverInfo {
  instructions: string;
  version: string; // zodexd's, as serverInfo.version
}

export const serverInfoOf = (info: Pick<DiscoverInfo, 'version'>) => ({ name: 'zodex', version: info.version });

export function okResult(info: { name: string; version: string }, id: Id, result: Record<string, unknown>) {
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  return { jsonrpc: '2.0' as const, id, result: { ...result, resultType: 'complete', _meta: { ...meta, [META.serverInfo]: info } } };
}

export function discoverResponse(info: DiscoverInfo, id: Id) {
  return okResult(serverInfoOf(info), id, {
    supportedVersions: [...SUPPORTED_REV2026_VERSIONS],
    capabilities: { tools: {} },
    instructions: info.instructions,
    ttlMs: LIST_TTL_MS,
    cacheScope: 'public',
  });
}

// One stderr line per client the first time it speaks this era (at most 100 names in `seen`).
export function noteClient(seen: Set<string>, envelope: Envelope, method: string, log: (line: string) => void): void {
  // Self-reported, so quoted: a name cannot move the operator's cursor or forge a line.
  const name = envelope.clientInfo === undefined ? '(no clientInfo)' : quote(`${envelope.clientInfo.name} ${envelope.clientInfo.version}`, 100);
  if (seen.has(name) || seen.size >= 100) return;
  seen.add(name);
  log(`MCP ${envelope.protocolVersion} request from ${name} (${quote(method, 60)}): serving it without a session`);
}
