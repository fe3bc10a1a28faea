// `zodex oauth pair|clients|revoke`: the operator's side of zodexd's OAuth (--oauth), on the
// state database. pair prints a one-time pairing code for the next approval; clients lists the
// grants (approved clients); revoke ends a grant at once: its tokens stop working on every zodexd.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { issuePairingCode, PAIRING_CODE_TTL_MS } from '../../features/oauth/index.js';
import { databasePath } from '../../features/store/index.js';
import { OAuthStore, type OAuthGrant } from '../../features/store/oauth.js';
import { CliUsageError, EXIT_FAILURE, EXIT_OK, type CliIo } from './command.js';
import { resolveStateDir } from '../../app/config/sources.js';
import { cell, jsonRow, localTime, table } from './format.js';

export const usage = `Usage: zodex oauth pair|clients|revoke [options]

The clients zodexd --oauth has approved, from the state database.

  zodex oauth pair              print a one-time pairing code (valid ${PAIRING_CODE_TTL_MS / 60_000} minutes) that approves
                                one authorization request on the approval page
  zodex oauth clients [--all]   list the grants (approved clients); --all includes revoked ones
  zodex oauth revoke GRANT_ID   revoke a grant: its access and refresh tokens stop working at once,
                                and zodexd ends its sessions and kills its commands within a second or so

  --json              (clients) a JSON array instead of a table
  --state-dir DIR     the state directory (default $XDG_STATE_HOME/zodex)
  -h, --help          this text
`;

const flags = {
  all: { type: 'boolean' },
  json: { type: 'boolean' },
  'state-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: flags, strict: true, allowPositionals: true });
  } catch (error) {
    throw new CliUsageError((error as Error).message.split('\n')[0]!);
  }
}

const state = (grant: OAuthGrant) => (grant.revokedAt === null ? 'active' : `revoked (${grant.revokedWhy ?? 'by the operator'})`);

function clients(store: OAuthStore, all: boolean, asJson: boolean, io: CliIo): number {
  const grants = store.grants({ includeRevoked: all });
  if (asJson) {
    io.stdout(
      JSON.stringify(
        grants.map((grant) => ({ ...jsonRow(grant), state: grant.revokedAt === null ? 'active' : 'revoked' })),
        null,
        2,
      ) + '\n',
    );
    return EXIT_OK;
  }
  if (grants.length === 0) {
    io.stderr(`zodex oauth: no ${all ? '' : 'active '}grants\n`);
    return EXIT_OK;
  }
  io.stdout(
    table(
      ['GRANT', 'CLIENT', 'REDIRECT', 'APPROVED', 'LAST USE', 'STATE'],
      grants.map((grant) => [
        grant.id,
        cell(grant.clientName, 40),
        cell(grant.redirectUri, 50),
        localTime(grant.createdAt),
        grant.usedAt === null ? '-' : localTime(grant.usedAt),
        state(grant),
      ]),
    ),
  );
  return EXIT_OK;
}

export function run(argv: string[], io: CliIo): number {
  const { values, positionals } = parse(argv);
  if (values.help) {
    io.stdout(usage);
    return EXIT_OK;
  }
  const [action, ...rest] = positionals;
  if (action !== 'pair' && action !== 'clients' && action !== 'revoke')
    throw new CliUsageError(`name an action: pair, clients or revoke${action === undefined ? '' : ` (not ${JSON.stringify(action.slice(0, 40))})`}`);
  if (action === 'revoke' ? rest.length !== 1 : rest.length !== 0)
    throw new CliUsageError(action === 'revoke' ? 'revoke takes one GRANT_ID (see zodex oauth clients)' : `${action} takes no arguments`);
  const stateDir = resolveStateDir(values['state-dir'], io.env);
  if (action !== 'pair' && !fs.existsSync(databasePath(stateDir))) {
    if (action === 'clients' && values.json) io.stdout('[]\n');
    io.stderr(`zodex oauth: no grants yet (no database in ${stateDir})\n`);
    return action === 'clients' ? EXIT_OK : EXIT_FAILURE;
  }
  const store = OAuthStore.open(stateDir, { mustExist: action !== 'pair' });
  try {
    if (action === 'pair') {
      io.stdout(`${issuePairingCode(store, io.now())}\n`);
      io.stderr(`zodex oauth: type this code on the approval page within ${PAIRING_CODE_TTL_MS / 60_000} minutes; it approves one request\n`);
      return EXIT_OK;
    }
    if (action === 'clients') return clients(store, values.all ?? false, values.json ?? false, io);
    const id = rest[0]!;
    if (!store.grant(id)) {
      io.stderr(`zodex oauth: no grant ${JSON.stringify(id.slice(0, 80))}; zodex oauth clients lists them\n`);
      return EXIT_FAILURE;
    }
    const revoked = store.revokeGrant(id, 'by the operator', io.now());
    io.stderr(revoked ? `zodex oauth: revoked ${id}; its tokens no longer work\n` : `zodex oauth: ${id} was already revoked\n`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}
