import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClientError,
  MAX_METADATA_FETCHES,
  MAX_REGISTERED_CLIENTS,
  MAX_UNAPPROVED_PER_SOURCE,
  redirectMatches,
  redirectUriProblem,
  registerClient,
  resolveClient,
  type ClientLookup,
} from '../../../src/features/oauth/clients.js';
import { OAuthStore } from '../../../src/features/store/oauth.js';

const stores: { store: OAuthStore; dir: string }[] = [];
afterEach(() => {
  for (const { store, dir } of stores.splice(0)) {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

function scratchStore(): OAuthStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-oauth-spec-'));
  const store = OAuthStore.open(path.join(dir, 'state'));
  stores.push({ store, dir });
  return store;
}

function lookup(store: OAuthStore, documents: Record<string, unknown>, allowLoopbackDocuments = false): ClientLookup & { fetched: string[] } {
  const fetched: string[] = [];
  const fake = (async (url: URL | string) => {
    fetched.push(String(url));
    const doc = documents[String(url)];
    return doc === undefined ? new Response('nope', { status: 404 }) : new Response(typeof doc === 'string' ? doc : JSON.stringify(doc), { status: 200 });
  }) as typeof fetch;
  return { store, allowLoopbackDocuments, fetch: fake, now: () => 1_000, fetched };
}

async function refusedWith(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ClientError);
  return (error as Error).message;
}

describe('redirect URIs', () => {
  it('admit https, loopback http and private-use schemes; never fragments, script schemes or plain http elsewhere', () => {
    for (const ok of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/',
      'http://localhost:3334/oauth/callback',
      'http://[::1]:9/cb',
      'cursor://anysphere.cursor-retrieval/oauth/callback',
    ]) {
      expect(redirectUriProblem(ok)).toBeUndefined();
    }
    for (const bad of [
      'http://evil.example/cb',
      'https://x.example/cb#f',
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'relative/cb',
      42,
      'https://x.example/' + 'a'.repeat(2_000),
    ]) {
      expect(redirectUriProblem(bad)).toBeDefined();
    }
  });
  it('hold only the characters RFC 3986 allows: no control character reaches a page or a log line', () => {
    expect(redirectUriProblem('x:cb/%1B%5B2K?a=%20b')).toBeUndefined(); // percent-encoded, as a URI carries them
    const forged = 'x:a\u001b]52;c;ZWNobyBvd25lZAo=\u0007\u001b[2K\rzodexd: oauth: the operator approved "Claude": grant zg_FAKE';
    for (const bad of [
      forged,
      'https://a.example/c\u009bb',
      'https://a.example/c b',
      'https://a.example/\u202ecb',
      'https://a.example/é',
      'https://a.example/%zz',
      'http://127.0.0.1:9/cb\n',
    ]) {
      expect(redirectUriProblem(bad)).toMatch(/RFC 3986/);
    }
    expect(redirectUriProblem(forged)).not.toMatch(/[\u0000-\u001f]/); // the message quotes it escaped
    expect(() => registerClient(scratchStore(), { client_name: 'Claude\u001b[2K\r', redirect_uris: ['https://a.example/cb'] }, 1)).toThrow(
      /without control characters/,
    );
  });
  it('match exactly, except the port of a loopback http redirect (RFC 8252 §7.3)', () => {
    expect(redirectMatches('http://127.0.0.1:1000/cb', 'http://127.0.0.1:2000/cb')).toBe(true);
    expect(redirectMatches('http://127.0.0.1:1000/cb', 'http://127.0.0.1:2000/other')).toBe(false);
    expect(redirectMatches('http://127.0.0.1/cb', 'http://localhost/cb')).toBe(false);
    expect(redirectMatches('https://a.example/cb', 'https://a.example/cb?x=1')).toBe(false);
    expect(redirectMatches('https://a.example:1/cb', 'https://a.example:2/cb')).toBe(false);
    expect(redirectMatches('http://127.0.0.1/cb', 'http://127.0.0.1:5/cb')).toBe(true);
    expect(redirectMatches('http://[::1]:1/cb?a=1', 'http://[::1]:2/cb?a=1')).toBe(true);
    // Nothing but the port: fragment, userinfo, case, path and query spelling differ.
    for (const given of [
      'http://127.0.0.1:2/cb#frag',
      'http://evil@127.0.0.1:2/cb',
      'http://127.0.0.1:2@evil.example/cb',
      'http://127.0.0.1:2/./cb',
      'http://127.0.0.1:2/%63b',
      'HTTP://127.0.0.1:2/cb',
      'http://127.0.0.1:2/cb/',
      'http://127.0.0.1:2/cb?',
      'http://127.1:2/cb',
      'http://127.0.0.1:2/CB',
    ]) {
      expect(redirectMatches('http://127.0.0.1:1/cb', given), given).toBe(false);
    }
  });
});

describe('registration (RFC 7591)', () => {
  it('registers a public client and refuses metadata it cannot honour', () => {
    const store = scratchStore();
    const answer = registerClient(
      store,
      { client_name: 'X', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      5_000,
    );
    expect(answer).toMatchObject({ client_name: 'X', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
    expect(store.client(answer.client_id as string)).toMatchObject({ kind: 'registered', clientName: 'X' });
    expect(() => registerClient(store, { redirect_uris: [] }, 1)).toThrow(/redirect_uris must list/);
    expect(() => registerClient(store, { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] }, 1)).toThrow(/grant_types/);
    expect(() => registerClient(store, { redirect_uris: ['https://a.example/cb'], response_types: ['token'] }, 1)).toThrow(/response_types/);
    expect(() => registerClient(store, [], 1)).toThrow(/JSON object/);
  });
});

describe('registration floods', () => {
  it("never lock a newcomer out: they push out registrations never approved, their own source's first", () => {
    const store = scratchStore();
    const register = (source: string) => registerClient(store, { redirect_uris: ['https://a.example/cb'] }, 1_000, source).client_id as string;
    const count = () => Number((store.db.prepare('SELECT count(*) AS n FROM oauth_clients').get() as { n: number }).n);
    const flood = Array.from({ length: MAX_UNAPPROVED_PER_SOURCE }, () => register('flooder'));
    const real = register('real');
    const approved = register('flooder');
    store.createGrant({
      id: 'zg_1',
      clientId: approved,
      clientName: 'x',
      redirectUri: 'https://a.example/cb',
      resource: 'r',
      audience: 'a',
      scope: 'zodex',
      createdAt: 1,
    });
    expect(store.client(flood[0]!)).toBeUndefined(); // the flooder's oldest made room for its newest
    expect(store.client(real)).toBeDefined();
    for (let i = 0; count() < MAX_REGISTERED_CLIENTS; i++) register(`source-${i}`);
    const newcomer = register('newcomer');
    expect(count()).toBe(MAX_REGISTERED_CLIENTS);
    expect(store.client(newcomer)).toBeDefined();
    expect(store.client(flood[1]!)).toBeUndefined(); // the oldest never approved, of any source
    expect([store.client(real), store.client(approved)].every(Boolean)).toBe(true);
    // Only when every registration was approved is a newcomer refused.
    store.db
      .prepare(
        `INSERT INTO oauth_grants (id, client_id, client_name, redirect_uri, resource, scope, created_at) SELECT 'g' || client_id, client_id, 'x', 'r', 'r', 'zodex', 1 FROM oauth_clients`,
      )
      .run();
    expect(() => register('late')).toThrow(/each was approved/);
    expect(count()).toBe(MAX_REGISTERED_CLIENTS);
  });
});

describe('client ID metadata documents', () => {
  const url = 'https://app.example/oauth/client.json';
  it('fetch the document, which must name itself and list valid redirects', async () => {
    const store = scratchStore();
    const client = await resolveClient(url, lookup(store, { [url]: { client_id: url, client_name: 'App', redirect_uris: ['https://app.example/cb'] } }));
    expect(client).toMatchObject({ clientId: url, kind: 'metadata', clientName: 'App', redirectUris: ['https://app.example/cb'] });
    expect(
      await refusedWith(resolveClient(url, lookup(store, { [url]: { client_id: 'https://other.example/x', redirect_uris: ['https://app.example/cb'] } }))),
    ).toContain('exactly its own URL');
    expect(await refusedWith(resolveClient(url, lookup(store, { [url]: { client_id: url, redirect_uris: ['http://app.example/cb'] } })))).toContain(
      'plain http',
    );
    expect(await refusedWith(resolveClient(url, lookup(store, { [url]: 'not json' })))).toContain('not a JSON object');
    expect(await refusedWith(resolveClient(url, lookup(store, {})))).toContain('HTTP 404');
    expect(await refusedWith(resolveClient(url, lookup(store, { [url]: 'x'.repeat(70_000) })))).toContain('larger than');
  });
  it('are read as they stream and given up at 64 KiB: a declared length beyond it before any byte', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = (headers: Record<string, string>) =>
      new Response(
        new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              if (pulled >= 2 * 1024 * 1024) return controller.close(); // finite, so a reader that reads it all ends too
              pulled += 16 * 1024;
              controller.enqueue(new Uint8Array(16 * 1024).fill(32));
            },
            cancel() {
              cancelled = true;
            },
          },
          { highWaterMark: 0 },
        ),
        { status: 200, headers },
      );
    const store = scratchStore();
    const serving = (response: () => Response): ClientLookup => ({
      store,
      allowLoopbackDocuments: false,
      fetch: (async () => response()) as typeof fetch,
      now: () => 1,
    });
    expect(
      await refusedWith(
        resolveClient(
          url,
          serving(() => endless({ 'content-length': String(128 * 1024 * 1024) })),
        ),
      ),
    ).toContain('declares 134217728 bytes');
    expect([pulled, cancelled]).toEqual([0, true]);
    cancelled = false;
    expect(
      await refusedWith(
        resolveClient(
          url,
          serving(() => endless({})),
        ),
      ),
    ).toContain('larger than 65536 bytes');
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(64 * 1024 + 16 * 1024);
  });
  it('are fetched at most MAX_METADATA_FETCHES at once; beyond, a request is refused at once, nothing fetched', async () => {
    const store = scratchStore();
    const answers: (() => void)[] = [];
    let fetched = 0;
    const slow: ClientLookup = {
      store,
      allowLoopbackDocuments: false,
      now: () => 1,
      fetch: (async () => {
        fetched++;
        await new Promise<void>((resolve) => answers.push(resolve));
        return new Response(JSON.stringify({ client_id: url, redirect_uris: ['https://app.example/cb'] }), { status: 200 });
      }) as typeof fetch,
    };
    const waiting = Array.from({ length: MAX_METADATA_FETCHES }, () => resolveClient(url, slow));
    expect(await refusedWith(resolveClient(url, slow))).toContain('try again in a few seconds');
    expect(fetched).toBe(MAX_METADATA_FETCHES);
    for (const answer of answers) answer();
    expect((await Promise.all(waiting)).every((client) => client.clientId === url)).toBe(true);
    // The slots are free again.
    expect(
      (await resolveClient(url, { ...slow, fetch: lookup(store, { [url]: { client_id: url, redirect_uris: ['https://app.example/cb'] } }).fetch })).clientId,
    ).toBe(url);
  });
  it("store nothing: a document's client is saved only beside the grant the operator approves", async () => {
    const store = scratchStore();
    await resolveClient(url, lookup(store, { [url]: { client_id: url, redirect_uris: ['https://app.example/cb'] } }));
    expect(store.client(url)).toBeUndefined();
    // Rows an older zodexd stored at each authorization request go like unapproved registrations.
    store.saveClient({ clientId: url, kind: 'metadata', clientName: 'old', redirectUris: ['https://app.example/cb'], createdAt: 0 });
    registerClient(store, { redirect_uris: ['https://app.example/cb'] }, 2 * 24 * 3_600_000);
    expect(store.client(url)).toBeUndefined();
  });
  it('are fetched only from https URLs with a path, never from IP addresses, loopback only when allowed', async () => {
    const store = scratchStore();
    const probe = lookup(store, {});
    for (const bad of [
      'https://app.example/',
      'https://10.0.0.1/client.json',
      'https://localhost/client.json',
      'http://app.example/client.json',
      'http://127.0.0.1:8/client.json',
    ]) {
      await refusedWith(resolveClient(bad, probe));
    }
    expect(probe.fetched).toEqual([]);
    const local = 'http://127.0.0.1:8/client.json';
    const allowed = lookup(store, { [local]: { client_id: local, redirect_uris: ['http://127.0.0.1:9/cb'] } }, true);
    expect((await resolveClient(local, allowed)).clientName).toBe('127.0.0.1:8');
  });
  it('an unknown plain client_id is refused', async () => {
    expect(await refusedWith(resolveClient('zc_nobody', lookup(scratchStore(), {})))).toContain('is not registered here');
  });
});
