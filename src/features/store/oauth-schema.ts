// The OAuth tables (migration 3): clients (registered or described by a metadata document),
// grants the operator approved, and the hashes of the tokens and pairing codes issued for them.
// A token or pairing code itself is never stored: only its SHA-256, so a copy of the file grants nothing.

export const OAUTH_TABLES_SQL = `
  CREATE TABLE oauth_clients (
    client_id     TEXT PRIMARY KEY,          -- issued by /oauth/register, or a metadata document URL
    kind          TEXT NOT NULL,             -- 'registered' | 'metadata'
    client_name   TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,             -- JSON array of strings
    created_at    INTEGER NOT NULL
  );
  CREATE TABLE oauth_grants (
    id           TEXT PRIMARY KEY,           -- 'zg_' + random, shown by zodex oauth clients
    client_id    TEXT NOT NULL,
    client_name  TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    resource     TEXT NOT NULL,              -- the MCP URL the tokens are bound to (RFC 8707)
    scope        TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    used_at      INTEGER,
    revoked_at   INTEGER,
    revoked_why  TEXT
  );
  CREATE TABLE oauth_tokens (
    hash       TEXT PRIMARY KEY,             -- SHA-256 (hex) of the token
    grant_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,                -- 'access' | 'refresh'
    expires_at INTEGER NOT NULL,
    rotated_at INTEGER                       -- a refresh token already exchanged for a new pair
  );
  CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
  CREATE TABLE oauth_pairing_codes (
    hash       TEXT PRIMARY KEY,             -- SHA-256 (hex) of the code
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
  );
`;

// Migration 4: the zodexd a grant's tokens are for. Every zodexd of a user shares one state dir;
// a token names its audience (RFC 8707) by the listener of the zodexd that issued it
// ('tcp:127.0.0.1:7391', 'unix:/run/…/mcp.sock'), never by a request's Host header. Grants made
// before have none, and their tokens are refused (authorize again). And where each registration
// came from (the peer address, 'unix' on a socket), so that one source's registrations are
// bounded without refusing anyone else's.
export const OAUTH_AUDIENCE_SQL = `
  ALTER TABLE oauth_grants ADD COLUMN audience TEXT;
  ALTER TABLE oauth_clients ADD COLUMN source TEXT;
`;
