import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authorize, decide } from '../../../src/features/oauth/authorize.js';
import { registerClient } from '../../../src/features/oauth/clients.js';
import {
  CODE_TTL_MS,
  MAX_PENDING,
  MAX_PENDING_PER_CLIENT,
  MAX_PENDING_PER_SOURCE,
  PENDING_TTL_MS,
  REFRESH_REUSE_GRACE_MS,
  REFRESH_TOKEN_TTL_MS,
  type OAuthContext,
} from '../../../src/features/oauth/context.js';
import { hashSecret, normalizePairingCode, s256 } from '../../../src/features/oauth/secrets.js';
import { tokenRequest } from '../../../src/features/oauth/token.js';
import { endpoints } from '../../../src/features/oauth/urls.js';
import { SecretRegistry } from '../../../src/secrets.js';
import { OAuthStore } from '../../../src/features/store/oauth.js';

const at = endpoints('http://127.0.0.1:7391');
const REDIRECT = 'http://127.0.0.1:9/cb';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'; // RFC 7636 appendix B
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function setup(): { context: OAuthContext & { clock: { now: number }; printed: string[]; ended: string[] }; clientId: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-oauth-flow-'));
  const store = OAuthStore.open(path.join(dir, 'state'));
  cleanups.push(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const clock = { now: 1_000_000 };
  const printed: string[] = [];
  const ended: string[] = [];
  const now = () => clock.now;
  const context = {
    store,
    clients: { store, allowLoopbackDocuments: false, fetch, now },
    now,
    log: (line: string) => printed.push(line),
    audience: 'tcp:127.0.0.1:7391' as string | undefined,
    accessTokenTtlMs: 60_000,
    pending: new Map(),
    codes: new Map(),
    revoked: (grantId: string) => ended.push(grantId),
    clock,
    printed,
    ended,
  };
  const clientId = registerClient(store, { client_name: 'spec', redirect_uris: [REDIRECT] }, clock.now).client_id as string;
  return { context, clientId };
}

const query = (clientId: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...extra,
  });

async function approved(context: ReturnType<typeof setup>['context'], clientId: string): Promise<string> {
  const outcome = await authorize(query(clientId), at, context);
  if (outcome.kind !== 'page') throw new Error(`expected the approval page, got ${outcome.kind}`);
  const code = /pairing code (\S+),/.exec(context.printed.at(-1)!)![1]!;
  const answer = decide(outcome.request, { approve: true, pairing_code: code }, context);
  return new URL(answer.body.redirect!).searchParams.get('code')!;
}

describe('PKCE', () => {
  it('computes S256 as RFC 7636 appendix B does', () => {
    expect(s256(VERIFIER)).toBe(CHALLENGE);
  });
  it('reads a pairing code however it is typed', () => {
    expect(normalizePairingCode(' ab1cd-0ef2g ')).toBe('AB1CD0EF2G');
    expect(normalizePairingCode('ABlCD-OEF2G')).toBe('AB1CD0EF2G');
  });
});

describe('lifetimes', () => {
  it('an authorization code dies after CODE_TTL_MS', async () => {
    const { context, clientId } = setup();
    const code = await approved(context, clientId);
    context.clock.now += CODE_TTL_MS + 1;
    const answer = tokenRequest(
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT }),
      at,
      context,
    );
    expect(answer.body).toMatchObject({ error: 'invalid_grant' });
  });
  it('a pending request dies after PENDING_TTL_MS', async () => {
    const { context, clientId } = setup();
    expect((await authorize(query(clientId), at, context)).kind).toBe('page');
    context.clock.now += PENDING_TTL_MS;
    expect((await authorize(query(clientId), at, context)).kind).toBe('page');
    expect(context.pending.size).toBe(1);
  });
  it('a newcomer is never refused: it pushes out the oldest request of its client, else of its source, else of anyone', async () => {
    const { context, clientId } = setup();
    const open = async (client: string, source: string) => {
      const outcome = await authorize(query(client), at, context, source);
      if (outcome.kind !== 'page') throw new Error(`expected the approval page, got ${outcome.kind}`);
      return outcome.request.id;
    };
    const waiting = (ids: string[]) => ids.filter((id) => context.pending.has(id));
    const own = [];
    for (let i = 0; i <= MAX_PENDING_PER_CLIENT; i++) own.push(await open(clientId, 'flooder'));
    expect(waiting(own)).toEqual(own.slice(1)); // one client's flood pushes out only its own
    const others = [];
    for (let i = 0; i < MAX_PENDING_PER_SOURCE; i++) {
      const another = registerClient(context.store, { redirect_uris: [REDIRECT] }, context.clock.now, 'flooder').client_id as string;
      others.push(await open(another, 'flooder'));
    }
    // The source holds MAX_PENDING_PER_SOURCE: its oldest went, another source's request stays.
    expect(waiting([...own, ...others])).toHaveLength(MAX_PENDING_PER_SOURCE);
    const real = await open(registerClient(context.store, { redirect_uris: [REDIRECT] }, context.clock.now, 'real').client_id as string, 'real');
    for (let i = 0; i < MAX_PENDING; i++) {
      const source = `many-${i}`;
      await open(registerClient(context.store, { redirect_uris: [REDIRECT] }, context.clock.now, source).client_id as string, source);
      expect(context.pending.size).toBeLessThanOrEqual(MAX_PENDING);
      if (i < MAX_PENDING - MAX_PENDING_PER_SOURCE - 1) expect(context.pending.has(real)).toBe(true);
    }
    expect(context.pending.has(real)).toBe(false); // only MAX_PENDING newer requests push it out
  });
  it('a refresh token dies after REFRESH_TOKEN_TTL_MS; tokens are stored as hashes only', async () => {
    const { context, clientId } = setup();
    const code = await approved(context, clientId);
    const tokens = tokenRequest(
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT }),
      at,
      context,
    ).body;
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 60, scope: 'zodex' });
    expect(context.store.token(hashSecret(tokens.access_token as string))?.kind).toBe('access');
    const rows = context.store.db.prepare('SELECT hash FROM oauth_tokens').all() as { hash: string }[];
    expect(rows.map((row) => row.hash).sort()).toEqual([hashSecret(tokens.access_token as string), hashSecret(tokens.refresh_token as string)].sort());
    context.clock.now += REFRESH_TOKEN_TTL_MS;
    const late = tokenRequest(
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId }),
      at,
      context,
    );
    expect(late.body).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('token requests', () => {
  it('repeat the redirect_uri of the authorization request, and name the same client', async () => {
    const { context, clientId } = setup();
    const code = await approved(context, clientId);
    const form = { grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId };
    expect(tokenRequest(new URLSearchParams(form), at, context).body.error_description).toContain('redirect_uri');
    const other = await approved(context, clientId);
    expect(
      tokenRequest(new URLSearchParams({ ...form, code: other, redirect_uri: REDIRECT, client_id: 'zc_other' }), at, context).body.error_description,
    ).toContain('another client_id');
    expect(tokenRequest(new URLSearchParams({ grant_type: 'password' }), at, context).body.error).toBe('unsupported_grant_type');
  });
  it('refuse a code presented at another resource', async () => {
    const { context, clientId } = setup();
    const code = await approved(context, clientId);
    const answer = tokenRequest(
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT }),
      endpoints('http://localhost:7391'),
      context,
    );
    expect(answer.body.error).toBe('invalid_target');
  });
});

describe('minted tokens are secrets', () => {
  it('each access and refresh token joins the registry as it is minted, until it expires or is spent', async () => {
    const { context, clientId } = setup();
    const secrets = new SecretRegistry(() => context.clock.now);
    context.secrets = secrets;
    const code = await approved(context, clientId);
    const first = tokenRequest(
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT }),
      at,
      context,
    ).body;
    expect(secrets.redactText(`${first.access_token} ${first.refresh_token}`)).toBe('[REDACTED:OAUTH_ACCESS_TOKEN] [REDACTED:OAUTH_REFRESH_TOKEN]');
    context.clock.now += 61_000; // the access token expired
    const second = tokenRequest(
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, client_id: clientId }),
      at,
      context,
    ).body;
    expect(
      secrets
        .list()
        .map((entry) => entry.value)
        .sort(),
    ).toEqual([second.access_token, second.refresh_token].sort());
  });
});

describe('the audience: the zodexd that issued a grant, never a Host header', () => {
  const exchange = (context: ReturnType<typeof setup>['context'], clientId: string, code: string) =>
    tokenRequest(
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT }),
      at,
      context,
    ).body;
  it('binds each grant to the listener of the zodexd that approved it', async () => {
    const { context, clientId } = setup();
    const tokens = exchange(context, clientId, await approved(context, clientId));
    expect(context.store.token(hashSecret(tokens.access_token as string))?.grant.audience).toBe('tcp:127.0.0.1:7391');
    // Another zodexd on the same state dir, asked with this one's Host (so at.resource matches).
    context.audience = 'tcp:127.0.0.1:7392';
    const refresh = tokenRequest(
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId }),
      at,
      context,
    ).body;
    expect(refresh).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('another zodexd') });
    context.audience = 'tcp:127.0.0.1:7391';
    expect(
      tokenRequest(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId }), at, context)
        .status,
    ).toBe(200);
  });
  it('refuses the refresh token of a grant made before audiences existed', async () => {
    const { context, clientId } = setup();
    const tokens = exchange(context, clientId, await approved(context, clientId));
    context.store.db.prepare('UPDATE oauth_grants SET audience = NULL').run();
    const refresh = tokenRequest(
      new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId }),
      at,
      context,
    ).body;
    expect(refresh).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('issued before') });
  });
});

describe('revocation by this server', () => {
  it('a replayed code or refresh token revokes its grant and says so, so that its sessions end', async () => {
    const { context, clientId } = setup();
    const form = (code: string) =>
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT });
    const code = await approved(context, clientId);
    const tokens = tokenRequest(form(code), at, context).body;
    const grant = context.store.token(hashSecret(tokens.access_token as string))!.grantId;
    expect(tokenRequest(form(code), at, context).body.error).toBe('invalid_grant');
    expect(context.ended).toEqual([grant]);
    const again = tokenRequest(form(await approved(context, clientId)), at, context).body;
    const second = context.store.token(hashSecret(again.access_token as string))!.grantId;
    const refresh = () =>
      tokenRequest(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: again.refresh_token as string, client_id: clientId }), at, context);
    expect(refresh().status).toBe(200);
    context.clock.now += 60_000;
    expect(refresh().body.error).toBe('invalid_grant');
    expect(context.ended).toEqual([grant, second]);
  });
  it('the store says which grants in use were revoked, and whether another connection wrote', () => {
    const { context } = setup();
    const other = OAuthStore.open(path.dirname(context.store.db.name));
    cleanups.push(() => other.close());
    context.store.createGrant({
      id: 'zg_a',
      clientId: 'c',
      clientName: 'n',
      redirectUri: REDIRECT,
      resource: at.resource,
      audience: 'tcp:x',
      scope: 'zodex',
      createdAt: 0,
    });
    expect(context.store.changedElsewhere()).toBe(true); // the first call has nothing to compare with
    expect(context.store.changedElsewhere()).toBe(false);
    context.store.touchGrant('zg_a', 1); // its own writes are no news
    expect(context.store.changedElsewhere()).toBe(false);
    other.revokeGrant('zg_a', 'spec', 2);
    expect(context.store.changedElsewhere()).toBe(true);
    expect(context.store.revokedAmong(['zg_a', 'zg_b'])).toEqual(['zg_a']);
  });
});

describe('what a replay is', () => {
  it('an intercepted code presented without its verifier or client spends nothing; presented again after the exchange, it revokes', async () => {
    const { context, clientId } = setup();
    const code = await approved(context, clientId);
    const form = (changes: Record<string, string>) =>
      new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId, redirect_uri: REDIRECT, ...changes });
    expect(tokenRequest(form({ code_verifier: 'x'.repeat(43) }), at, context).body.error_description).toContain('PKCE');
    expect(tokenRequest(form({ client_id: 'zc_thief' }), at, context).body.error_description).toContain('another client_id');
    expect(tokenRequest(form({ redirect_uri: 'http://127.0.0.1:9/other' }), at, context).body.error_description).toContain('redirect_uri');
    expect(tokenRequest(form({}), at, context).status).toBe(200); // the client it was issued to
    expect(context.ended).toEqual([]);
    expect(tokenRequest(form({}), at, context).body.error_description).toContain('already used');
    expect(context.ended).toHaveLength(1);
  });
  it('a refresh token presented again within REFRESH_REUSE_GRACE_MS is refused and the grant kept; later it revokes', async () => {
    const { context, clientId } = setup();
    const first = tokenRequest(
      new URLSearchParams({
        grant_type: 'authorization_code',
        code: await approved(context, clientId),
        code_verifier: VERIFIER,
        client_id: clientId,
        redirect_uri: REDIRECT,
      }),
      at,
      context,
    ).body;
    const refresh = () =>
      tokenRequest(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token as string, client_id: clientId }), at, context);
    const rotated = refresh().body;
    context.clock.now += REFRESH_REUSE_GRACE_MS;
    expect(refresh().body.error_description).toContain('moments ago');
    expect(context.ended).toEqual([]);
    expect(context.store.token(hashSecret(rotated.access_token as string))?.grant.revokedAt).toBeNull();
    context.clock.now += 1;
    expect(refresh().body.error_description).toContain('already used');
    expect(context.ended).toHaveLength(1);
  });
});

describe('the store', () => {
  it('uses a pairing code once, and not after it expired', () => {
    const { context } = setup();
    context.store.addPairingCode('h1', 0, 2_000_000);
    expect(context.store.consumePairingCode('h1', 1_000_000)).toBe(true);
    expect(context.store.consumePairingCode('h1', 1_000_000)).toBe(false);
    context.store.addPairingCode('h2', 0, 10);
    expect(context.store.consumePairingCode('h2', 11)).toBe(false);
  });
});
