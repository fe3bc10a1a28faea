// Checking the bearer token of an MCP request: the static token (--auth-token-file), or an
// access token this server issued, unexpired, of a grant not revoked, bound to this very
// resource and issued by this very zodexd (RFC 8707: its listener is the audience, so a token of
// another zodexd on the same state dir is refused whatever Host the request names). Refusals are 401 with the
// challenge that leads a client to the metadata (RFC 9728 §5.1); a broken store refuses too.

import { sameSecret } from '../../net/secret.js';
import type { OAuthStore } from '../store/oauth.js';
import { hashSecret } from './secrets.js';
import { audienceProblem, bearerChallenge, type Endpoints } from './urls.js';

export type BearerVerdict = { ok: true; grantId?: string } | { ok: false; status: number; body: string; headers: Record<string, string> };

const TOUCH_EVERY_MS = 60_000; // how often a grant's last-use time is written

export class BearerCheck {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: OAuthStore,
    private readonly staticToken: string | undefined,
    private readonly now: () => number,
    private readonly log: (message: string) => void,
    private readonly audience: () => string | undefined, // this zodexd's listener (context.ts)
  ) {}

  check(authorization: string | undefined, at: Endpoints): BearerVerdict {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match)
      return this.refuse(
        at,
        'this zodexd requires "Authorization: Bearer <token>": an OAuth access token (discovery starts at the resource_metadata URL in WWW-Authenticate) or its static token',
      );
    const token = match[1]!;
    if (this.staticToken !== undefined && sameSecret(token, this.staticToken)) return { ok: true };
    let row;
    try {
      row = this.store.token(hashSecret(token));
    } catch (error) {
      this.log(`oauth: the state database cannot be read, so no token is accepted: ${(error as Error).message}`);
      return {
        ok: false,
        status: 503,
        body: 'Service Unavailable: zodexd cannot check tokens right now (its state database failed; see its stderr).\n',
        headers: { 'Retry-After': '5' },
      };
    }
    const now = this.now();
    if (!row || row.kind !== 'access') return this.refuse(at, 'the access token is not one this server issued, or it was revoked', 'invalid_token');
    if (row.grant.revokedAt !== null) return this.refuse(at, 'the grant of this access token was revoked', 'invalid_token');
    if (row.expiresAt <= now) return this.refuse(at, 'the access token expired; refresh it', 'invalid_token');
    if (row.grant.resource !== at.resource) return this.refuse(at, `the access token is for ${row.grant.resource}, not for ${at.resource}`, 'invalid_token');
    const other = audienceProblem(row.grant.audience, this.audience());
    if (other) return this.refuse(at, `the access token ${other}`, 'invalid_token');
    if ((this.touched.get(row.grantId) ?? 0) + TOUCH_EVERY_MS <= now) {
      this.touched.set(row.grantId, now);
      try {
        this.store.touchGrant(row.grantId, now);
      } catch {
        // the last-use time is for the operator's eyes only
      }
    }
    return { ok: true, grantId: row.grantId };
  }

  private refuse(at: Endpoints, description: string, error?: string): BearerVerdict {
    return {
      ok: false,
      status: 401,
      body: `Unauthorized: ${description}.\n`,
      headers: { 'WWW-Authenticate': bearerChallenge(at, error ? { error, description } : undefined) },
    };
  }
}
