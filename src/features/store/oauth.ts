// The OAuth state on its own connection to the state database (tables: oauth-schema.ts). Unlike
// the history store it never degrades: a database that fails makes every token check fail, so
// authorization fails closed. Callers pass hashes, never tokens; every write is one statement or
// one IMMEDIATE transaction, so zodexd, `zodex oauth` and the Liveboard can share the file.

import type { Database } from 'better-sqlite3';
import { openDatabase } from './database.js';

export type OAuthClientKind = 'registered' | 'metadata';

export interface OAuthClient {
  clientId: string;
  kind: OAuthClientKind;
  clientName: string;
  redirectUris: string[];
  createdAt: number;
}

export interface OAuthGrant {
  id: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  resource: string;
  audience: string | null; // the listener of the zodexd that issued it (null: made before audiences)
  scope: string;
  createdAt: number;
  usedAt: number | null;
  revokedAt: number | null;
  revokedWhy: string | null;
}

export interface OAuthTokenRow {
  grantId: string;
  kind: 'access' | 'refresh';
  expiresAt: number;
  rotatedAt: number | null;
  grant: OAuthGrant;
}

type Row = Record<string, unknown>;
const n = (value: unknown): number | null => (typeof value === 'number' ? value : value === null || value === undefined ? null : Number(value));

function grantOf(row: Row): OAuthGrant {
  return {
    id: String(row.id),
    clientId: String(row.client_id),
    clientName: String(row.client_name),
    redirectUri: String(row.redirect_uri),
    resource: String(row.resource),
    audience: row.audience === null || row.audience === undefined ? null : String(row.audience),
    scope: String(row.scope),
    createdAt: Number(row.created_at),
    usedAt: n(row.used_at),
    revokedAt: n(row.revoked_at),
    revokedWhy: row.revoked_why === null ? null : String(row.revoked_why),
  };
}

export class OAuthStore {
  private dataVersion: number | undefined;

  constructor(readonly db: Database) {}

  static open(stateDir: string, options: { mustExist?: boolean } = {}): OAuthStore {
    return new OAuthStore(openDatabase(stateDir, options));
  }

  saveClient(client: OAuthClient): void {
    this.db
      .prepare(
        `INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, redirect_uris = excluded.redirect_uris`,
      )
      .run(client.clientId, client.kind, client.clientName, JSON.stringify(client.redirectUris), client.createdAt);
  }

  client(clientId: string): OAuthClient | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_clients WHERE client_id = ?').get(clientId) as Row | undefined;
    if (!row) return undefined;
    return {
      clientId: String(row.client_id),
      kind: row.kind as OAuthClientKind,
      clientName: String(row.client_name),
      redirectUris: JSON.parse(String(row.redirect_uris)) as string[],
      createdAt: Number(row.created_at),
    };
  }

  // Clients that never got a grant and are older than `before` are forgotten (registrations, and
  // metadata documents an older zodexd stored at each authorization request).
  pruneClients(before: number): number {
    return this.db.prepare('DELETE FROM oauth_clients WHERE created_at < ? AND client_id NOT IN (SELECT client_id FROM oauth_grants)').run(before).changes;
  }

  // Registers a client from `source` in one IMMEDIATE transaction (every zodexd of the user shares
  // the file): when `source` already has perSource registrations never approved, or all sources
  // together `total` registrations, the oldest registration never approved (of that source, else
  // of any) is forgotten to make room. False when every registration was approved (nothing to
  // forget); then nothing is written.
  registerWithin(client: OAuthClient, source: string, limits: { perSource: number; total: number }): boolean {
    const unapproved = `kind = 'registered' AND client_id NOT IN (SELECT client_id FROM oauth_grants)`;
    const count = (sql: string, ...args: unknown[]) => Number((this.db.prepare(sql).get(...args) as Row).n);
    const forgetOldest = (where: string, ...args: unknown[]) =>
      this.db
        .prepare(`DELETE FROM oauth_clients WHERE client_id = (SELECT client_id FROM oauth_clients WHERE ${where} ORDER BY created_at, rowid LIMIT 1)`)
        .run(...args).changes === 1;
    return this.db
      .transaction(() => {
        if (count(`SELECT count(*) AS n FROM oauth_clients WHERE ${unapproved} AND source = ?`, source) >= limits.perSource)
          forgetOldest(`${unapproved} AND source = ?`, source);
        else if (count(`SELECT count(*) AS n FROM oauth_clients WHERE kind = 'registered'`) >= limits.total && !forgetOldest(unapproved)) return false;
        this.db
          .prepare('INSERT INTO oauth_clients (client_id, kind, client_name, redirect_uris, created_at, source) VALUES (?, ?, ?, ?, ?, ?)')
          .run(client.clientId, client.kind, client.clientName, JSON.stringify(client.redirectUris), client.createdAt, source);
        return true;
      })
      .immediate();
  }

  createGrant(grant: Omit<OAuthGrant, 'usedAt' | 'revokedAt' | 'revokedWhy' | 'audience'> & { audience: string }): void {
    this.db
      .prepare('INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, resource, audience, scope, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(grant.id, grant.clientId, grant.clientName, grant.redirectUri, grant.resource, grant.audience, grant.scope, grant.createdAt);
  }

  grant(id: string): OAuthGrant | undefined {
    const row = this.db.prepare('SELECT * FROM oauth_grants WHERE id = ?').get(id) as Row | undefined;
    return row ? grantOf(row) : undefined;
  }

  grants(options: { includeRevoked?: boolean } = {}): OAuthGrant[] {
    const where = options.includeRevoked ? '' : 'WHERE revoked_at IS NULL';
    return (this.db.prepare(`SELECT * FROM oauth_grants ${where} ORDER BY created_at, id`).all() as Row[]).map(grantOf);
  }

  // Revoking a grant deletes its tokens: nothing issued under it works any more.
  revokeGrant(id: string, why: string, at: number): boolean {
    return this.db
      .transaction(() => {
        const changed = this.db.prepare('UPDATE oauth_grants SET revoked_at = ?, revoked_why = ? WHERE id = ? AND revoked_at IS NULL').run(at, why, id).changes;
        this.db.prepare('DELETE FROM oauth_tokens WHERE grant_id = ?').run(id);
        return changed === 1;
      })
      .immediate();
  }

  // Which of `ids` are revoked (by this process, `zodex oauth revoke` or a Liveboard).
  revokedAmong(ids: Iterable<string>): string[] {
    const rows = this.db
      .prepare('SELECT id FROM oauth_grants WHERE revoked_at IS NOT NULL AND id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify([...ids])) as Row[];
    return rows.map((row) => String(row.id));
  }

  // Whether another connection (another process, the Liveboard's) committed since the last call:
  // SQLite's data_version, one cheap read, so a watcher queries only after a change.
  changedElsewhere(): boolean {
    const version = Number(this.db.pragma('data_version', { simple: true }));
    const changed = version !== this.dataVersion;
    this.dataVersion = version;
    return changed;
  }

  touchGrant(id: string, at: number): void {
    this.db.prepare('UPDATE oauth_grants SET used_at = ? WHERE id = ?').run(at, id);
  }

  addToken(hash: string, grantId: string, kind: 'access' | 'refresh', expiresAt: number): void {
    this.db.prepare('INSERT INTO oauth_tokens (hash, grant_id, kind, expires_at) VALUES (?, ?, ?, ?)').run(hash, grantId, kind, expiresAt);
  }

  token(hash: string): OAuthTokenRow | undefined {
    const row = this.db
      .prepare('SELECT t.kind AS token_kind, t.expires_at, t.rotated_at, g.* FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE t.hash = ?')
      .get(hash) as Row | undefined;
    if (!row) return undefined;
    return {
      grantId: String(row.id),
      kind: row.token_kind as 'access' | 'refresh',
      expiresAt: Number(row.expires_at),
      rotatedAt: n(row.rotated_at),
      grant: grantOf(row),
    };
  }

  // Marks a refresh token exchanged; false when it already was (a replay) or does not exist.
  rotateRefreshToken(hash: string, at: number): boolean {
    return this.db.prepare(`UPDATE oauth_tokens SET rotated_at = ? WHERE hash = ? AND kind = 'refresh' AND rotated_at IS NULL`).run(at, hash).changes === 1;
  }

  addPairingCode(hash: string, createdAt: number, expiresAt: number): void {
    this.db.prepare('INSERT INTO oauth_pairing_codes (hash, created_at, expires_at) VALUES (?, ?, ?)').run(hash, createdAt, expiresAt);
  }

  // Uses up a pairing code: true once, for a code that exists and has not expired.
  consumePairingCode(hash: string, at: number): boolean {
    return this.db.prepare('UPDATE oauth_pairing_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ?').run(at, hash, at).changes === 1;
  }

  // Expired tokens and pairing codes are deleted (a rotated refresh token is kept until it
  // expires, so that its replay is still recognised and revokes the grant).
  prune(at: number): void {
    this.db.prepare('DELETE FROM oauth_tokens WHERE expires_at <= ?').run(at);
    this.db.prepare('DELETE FROM oauth_pairing_codes WHERE expires_at <= ?').run(at);
  }

  close(): void {
    this.db.close();
  }
}
