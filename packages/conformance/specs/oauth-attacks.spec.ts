// Issue 22: zodexd --oauth under attack, from a scripted client that does what no well-behaved
// one would: text that would drive the operator's terminal, tokens carried to another zodexd,
// floods, decisions raced against each other, redirect and parameter variants. Each test is the
// attack as it was found, and what must hold instead.

import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { expect, requirement, test } from '../harness/fixtures.js';
import {
  approvedCode,
  authorizationParams,
  decide,
  grantTokens,
  json,
  oauthCli,
  openAuthorization,
  pkce,
  REDIRECT,
  register,
  stopOAuthServers,
  tokenRequest,
  withOAuth,
  type Opened,
  type OAuthServer,
} from '../harness/oauth.js';
import { opening, toolCaller } from '../harness/oauth-era.js';
import { alive } from '../harness/process.js';

// zodexd's state database, opened by these zodexd-profile tests alone: imported when one runs, so
// the packed suite (which holds no SQLite driver) loads this file against any server.
async function openDatabase(file: string, options?: BetterSqlite3.Options): Promise<BetterSqlite3.Database> {
  const { default: Database } = await import('better-sqlite3');
  return new Database(file, options);
}

// Also after a test that timed out (its finally blocks never ran).
test.afterEach(stopOAuthServers);

// An OSC 52 clipboard write, a line erase and a carriage return, then a forged line.
const FORGED = 'x:a\u001b]52;c;ZWNobyBvd25lZAo=\u0007\u001b[2K\rzodexd: oauth: the operator approved "Claude": grant zg_FAKE';
// What must never reach the operator's terminal: any control character but the line ends, DEL,
// C1 controls, bidirectional overrides.
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const registration = (srv: OAuthServer, body: unknown) =>
  srv.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// A loopback http server answering every GET with what `answer` writes (metadata documents).
async function documentHost(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: (name: string) => string; close(): void }> {
  const host = http.createServer(answer);
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const port = (host.address() as AddressInfo).port;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () => {
      host.closeAllConnections();
      host.close();
    },
  };
}

requirement('oauth.client-text-escaped', async () => {
  const docs = await documentHost((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ client_id: `http://127.0.0.1:${(req.socket.address() as AddressInfo).port}${req.url}`, client_name: 'Doc', redirect_uris: [FORGED] }),
    );
  });
  try {
    await withOAuth([], async (srv) => {
      // Registration refuses what RFC 3986 does not allow in a URI, and control characters in a name.
      const refused = await registration(srv, { client_name: 'x', redirect_uris: [FORGED] });
      expect(refused.status).toBe(400);
      expect(json(refused).error).toBe('invalid_redirect_uri');
      const named = await registration(srv, { client_name: 'Claude\u001b[2K\r', redirect_uris: ['x:cb'] });
      expect(json(named).error).toBe('invalid_client_metadata');
      // So does a metadata document: an error page, no pairing code.
      const doc = await openAuthorization(srv, authorizationParams(docs.url('client.json'), pkce().challenge, { redirect_uri: FORGED }));
      expect(doc.response.status).toBe(400);
      // A client registered before this rule (its row written straight into the state database)
      // is still named on stderr only escaped and quoted.
      const clientId = await register(srv, ['x:cb'], 'plain');
      const db = await openDatabase(path.join(srv.stateDir, 'zodex.db'));
      db.prepare('UPDATE oauth_clients SET client_name = ?, redirect_uris = ? WHERE client_id = ?').run(
        'Cl\u009b2Kaude\u202e',
        JSON.stringify([FORGED]),
        clientId,
      );
      db.close();
      const old = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: FORGED }));
      expect(old.response.status).toBe(200);
      await srv.pairingCode(0);
      const stderr = srv.server.stderr();
      expect(stderr).toContain(
        'oauth: "Cl\\u009b2Kaude\\u202e" (redirect to "x:a\\u001b]52;c;ZWNobyBvd25lZAo=\\u0007\\u001b[2K\\rzodexd: oauth: the operator approved \\"Claude\\": g"… and 12 more characters) asks for access',
      );
      expect(stderr).not.toMatch(RAW_CONTROL);
      expect(stderr).not.toMatch(/^zodexd: oauth: the operator approved/m);
    });
  } finally {
    docs.close();
  }
});

requirement('oauth.audience-not-host', async ({ protocol }) => {
  await withOAuth([], async (first) => {
    const { clientId, accessToken, refreshToken } = await grantTokens(first, 0);
    const asFirst = { host: new URL(first.base).host, authorization: `Bearer ${accessToken}` };
    await withOAuth(
      [],
      async (second) => {
        // The other zodexd of the same state dir, told it is the first one: refused all the same.
        const refused = await second.request('/mcp', opening(protocol, asFirst));
        expect(refused.status).toBe(401);
        expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
        expect(refused.headers['www-authenticate']).toContain('issued by another zodexd');
        const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'exec_command', arguments: { cmd: 'echo ran', workdir: '/' } } };
        expect(
          (
            await second.request('/mcp', {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...asFirst },
              body: JSON.stringify(call),
            })
          ).status,
        ).toBe(401);
        const refresh = await second.request('/oauth/token', {
          method: 'POST',
          headers: { host: asFirst.host, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString(),
        });
        expect(json(refresh)).toMatchObject({ error: 'invalid_grant' });
      },
      { stateDir: first.stateDir },
    );
    // The first zodexd still takes its own tokens, the refresh token included (it was not used up).
    expect((await first.request('/mcp', opening(protocol, { authorization: `Bearer ${accessToken}` }))).status).toBe(200);
    expect((await tokenRequest(first, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId })).status).toBe(200);
  });
});

requirement('oauth.revoke-kills', async ({ protocol }) => {
  await withOAuth([], async (srv) => {
    const { accessToken } = await grantTokens(srv, 0);
    const call = await toolCaller(srv, protocol, accessToken);
    // A folder of the test's own: the state dir is a credential store commands cannot reach (the
    // governed default write mode masks it).
    const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-revoke-kills-')));
    const pidFile = (name: string) => path.join(work, `${name}.pid`);
    const pidOf = async (name: string) => {
      await expect.poll(() => fs.existsSync(pidFile(name)) && fs.readFileSync(pidFile(name), 'utf8').trim() !== '').toBe(true);
      return Number(fs.readFileSync(pidFile(name), 'utf8'));
    };
    // One command whose handle was handed out, and one whose call is still waiting at the revocation.
    const started = await call('exec_command', { cmd: `echo $$ > ${pidFile('handed')}; exec sleep 300`, workdir: work, yield_time_ms: 300 });
    expect(started.reply?.result?.structuredContent).toMatchObject({ status: 'running' });
    const waiting = call('exec_command', { cmd: `echo $$ > ${pidFile('waiting')}; exec sleep 300`, workdir: work, yield_time_ms: 25_000 }).catch(
      (error: Error) => error,
    );
    const pids = [await pidOf('handed'), await pidOf('waiting')];
    expect(pids.every(alive)).toBe(true);
    const [grant] = JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout) as { id: string }[];
    const revokedAt = Date.now();
    await oauthCli(srv, 'revoke', grant!.id);
    // Cut off at once: the commands die within a few seconds, and the waiting call ends with them.
    await expect.poll(() => pids.filter(alive), { timeout: 5_000 }).toEqual([]);
    await waiting;
    expect(Date.now() - revokedAt).toBeLessThan(10_000);
    await expect
      .poll(() => srv.server.stderr())
      .toMatch(new RegExp(`oauth: grant ${grant!.id} was revoked: ${protocol === 'legacy' ? 1 : 0} session\\(s\\) ended, 2 command\\(s\\) killed`));
    fs.rmSync(work, { recursive: true, force: true });
  });
});

requirement('oauth.metadata-document-bounded', async () => {
  const HUGE = 128 * 1024 * 1024;
  const sent: Record<string, { bytes: number; closed: Promise<void> }> = {};
  const docs = await documentHost((req, res) => {
    const name = req.url!.slice(1);
    const self = `http://127.0.0.1:${(req.socket.address() as AddressInfo).port}${req.url}`;
    if (name === 'client.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ client_id: self, client_name: 'Bounded', redirect_uris: [REDIRECT] }));
    }
    // 128 MiB of JSON-ish padding, declared up front or chunked, written as fast as it is read.
    const record = { bytes: 0, closed: new Promise<void>((resolve) => res.once('close', resolve)) };
    sent[name] = record;
    res.writeHead(200, { 'content-type': 'application/json', ...(name === 'declared.json' ? { 'content-length': String(HUGE) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, 32);
    const pump = () => {
      while (record.bytes < HUGE && !res.destroyed) {
        record.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  try {
    await withOAuth([], async (srv) => {
      for (const name of ['declared.json', 'chunked.json']) {
        const opened = await openAuthorization(srv, authorizationParams(docs.url(name), pkce().challenge));
        expect(opened.response.status).toBe(400);
        expect(opened.response.body).toMatch(name === 'declared.json' ? /declares 134217728 bytes/ : /larger than 65536 bytes/);
        await sent[name]!.closed;
        // zodexd hung up long before the end: what it was sent is the socket buffers' worth, not 128 MiB.
        expect(sent[name]!.bytes).toBeLessThan(16 * 1024 * 1024);
      }
      // A document's client is stored only with the grant the operator approves.
      const clientId = docs.url('client.json');
      const rows = async () => {
        const db = await openDatabase(path.join(srv.stateDir, 'zodex.db'), { readonly: true });
        try {
          return (db.prepare("SELECT client_id FROM oauth_clients WHERE kind = 'metadata'").all() as { client_id: string }[]).map((row) => row.client_id);
        } finally {
          db.close();
        }
      };
      const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
      expect(opened.response.status).toBe(200);
      expect(await rows()).toEqual([]);
      expect(json(await decide(srv, opened, { approve: true, pairing_code: await srv.pairingCode(0) })).redirect).toContain('code=');
      expect(await rows()).toEqual([clientId]);
    });
  } finally {
    docs.close();
  }
});

requirement('oauth.flood-admits-newcomers', async () => {
  await withOAuth([], async (srv) => {
    const codes = () => [...srv.server.stderr().matchAll(/pairing code ([0-9A-Z]{5}-[0-9A-Z]{5})/g)].length;
    const from = (localAddress: string) => ({ localAddress, headers: { host: new URL(srv.base).host } });
    const registerFrom = async (localAddress: string) => {
      const answer = await srv.request('/oauth/register', {
        ...from(localAddress),
        method: 'POST',
        headers: { ...from(localAddress).headers, 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT] }),
      });
      return { status: answer.status, clientId: json(answer).client_id as string };
    };
    const ask = (clientId: string, localAddress = '127.0.0.1', method = 'GET') =>
      srv.request(`/oauth/authorize?${new URLSearchParams(authorizationParams(clientId, pkce().challenge))}`, { ...from(localAddress), method });
    // A link preview's HEAD asks nothing: no request, no pairing code.
    const flooder = await register(srv);
    const head = await ask(flooder, '127.0.0.1', 'HEAD');
    expect(head.status).toBe(200);
    expect(codes()).toBe(0);
    // 40 requests of one client, then one each of 20 more clients, all from one source (10 minutes each).
    for (let i = 0; i < 40; i++) expect((await ask(flooder)).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await ask((await registerFrom('127.0.0.1')).clientId)).status).toBe(200);
    // 1,000 registrations from ten sources, 100 each.
    for (let source = 10; source < 20; source++) {
      const batch = await Promise.all(Array.from({ length: 100 }, () => registerFrom(`127.0.0.${source}`)));
      expect(batch.every((answer) => answer.status === 201)).toBe(true);
    }
    // A real client from elsewhere registers, is shown the page and approved with its code.
    const real = await registerFrom('127.0.0.2');
    expect(real.status).toBe(201);
    const opened = await openAuthorization(srv, authorizationParams(real.clientId, pkce().challenge), from('127.0.0.2'));
    expect(opened.response.status).toBe(200);
    // The 61st code printed (stderr may lag behind the page: waited for by its index).
    const answer = await decide(srv, opened, { approve: true, pairing_code: await srv.pairingCode(60) });
    expect(json(answer).redirect).toContain('code=');
    // The flooder's own first requests were pushed out, not the real one.
    const db = await openDatabase(path.join(srv.stateDir, 'zodex.db'), { readonly: true });
    try {
      expect(Number((db.prepare("SELECT count(*) AS n FROM oauth_clients WHERE kind = 'registered'").get() as { n: number }).n)).toBeLessThanOrEqual(1_000);
    } finally {
      db.close();
    }
  });
});

// A decision whose headers are sent now and whose body (chunked) only when send() is called: the
// server has looked the request up and is waiting for the body meanwhile.
function heldDecision(srv: OAuthServer, opened: Opened): (body: Record<string, unknown>) => Promise<{ status: number; body: Record<string, unknown> }> {
  const target = new URL(`${srv.base}/oauth/authorize/decision?request=${opened.requestId}`);
  let answered!: (value: { status: number; body: Record<string, unknown> }) => void;
  const answer = new Promise<{ status: number; body: Record<string, unknown> }>((resolve) => (answered = resolve));
  const req = http.request(
    {
      host: target.hostname,
      port: target.port,
      path: target.pathname + target.search,
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: srv.base, 'x-zodex-approval': opened.csrf ?? '' },
    },
    (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => answered({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    },
  );
  req.flushHeaders();
  return (body) => {
    req.end(JSON.stringify(body));
    return answer;
  };
}

requirement('oauth.decision-atomic', async () => {
  await withOAuth([], async (srv) => {
    const clientId = await register(srv);
    // Six decisions in flight on one request: five wrong codes refuse it, so the sixth, with the
    // right code, finds it gone.
    const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    const code = await srv.pairingCode(0);
    const held = Array.from({ length: 6 }, () => heldDecision(srv, opened));
    // Time for each to be looked up (had it not been yet, it would find the request gone anyway).
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const send of held.slice(0, 5)) expect((await send({ approve: true, pairing_code: 'AAAAA-AAAAA' })).status).toBe(403);
    const late = await held[5]!({ approve: true, pairing_code: code });
    expect(late.status).toBe(404);
    expect(JSON.stringify(late.body)).not.toContain('code=');
    // Two approvals in flight with the right code: one grant, one code.
    const again = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    const right = await srv.pairingCode(1);
    const twins = [heldDecision(srv, again), heldDecision(srv, again)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answers = await Promise.all(twins.map((send) => send({ approve: true, pairing_code: right })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 404]);
    expect(answers.filter((answer) => String(answer.body.redirect ?? '').includes('code='))).toHaveLength(1);
    expect(JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout)).toHaveLength(1);
  });
});

requirement('oauth.redirect-exact', async () => {
  await withOAuth([], async (srv) => {
    const registered = 'http://127.0.0.1:9/cb';
    const clientId = await register(srv, [registered]);
    for (const variant of [
      'http://127.0.0.1:9/cb#frag',
      'http://evil@127.0.0.1:9/cb',
      'http://127.0.0.1:9@evil.example/cb',
      'http://127.0.0.1:9/./cb',
      'http://127.0.0.1:9/%63b',
      'HTTP://127.0.0.1:9/cb',
      'http://127.0.0.1:9/cb/',
    ]) {
      const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: variant }));
      expect(opened.response.status, variant).toBe(400);
      expect(opened.response.headers.location).toBeUndefined();
    }
    expect(srv.server.stderr()).not.toMatch(/pairing code [0-9A-Z]{5}-/);
    // Only the loopback port may differ (RFC 8252 §7.3: a native app listens where it can).
    expect((await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:54321/cb' }))).response.status).toBe(
      200,
    );
  });
});

requirement('oauth.repeated-parameters', async () => {
  await withOAuth([], async (srv) => {
    const { clientId, verifier, code } = await approvedCode(srv, 0);
    const other = await register(srv);
    const base = new URLSearchParams(authorizationParams(clientId, pkce().challenge, { resource: srv.mcpUrl, scope: 'zodex' }));
    const twice = (name: string, value: string) => {
      const query = new URLSearchParams(base);
      query.append(name, value);
      return srv.request(`/oauth/authorize?${query}`);
    };
    // Who the client is, or where the answer goes, given twice: an error page, never a redirect.
    for (const [name, value] of [
      ['client_id', other],
      ['redirect_uri', 'http://127.0.0.1:9/other'],
    ] as const) {
      const answer = await twice(name, value);
      expect(answer.status, name).toBe(400);
      expect(answer.headers.location).toBeUndefined();
    }
    // Anything else twice goes back to the client as invalid_request, first value or not.
    for (const name of ['code_challenge', 'code_challenge_method', 'state', 'resource', 'scope', 'response_type']) {
      const answer = await twice(name, name === 'code_challenge' ? pkce().challenge : 'x');
      expect(answer.status, name).toBe(302);
      expect(new URL(answer.headers.location!).searchParams.get('error'), name).toBe('invalid_request');
    }
    expect(srv.server.stderr().match(/pairing code [0-9A-Z]{5}-/g)).toHaveLength(1); // the approval above
    // The token endpoint too: the code is not spent by a refused request.
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT });
    for (const [name, value] of [
      ['code', 'zac_other'],
      ['code_verifier', pkce().verifier],
      ['client_id', other],
      ['grant_type', 'refresh_token'],
    ] as const) {
      const repeated = new URLSearchParams(form);
      repeated.append(name, value);
      const answer = await srv.request('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: repeated.toString(),
      });
      expect(answer.status, name).toBe(400);
      expect(json(answer).error, name).toBe('invalid_request');
    }
    expect((await tokenRequest(srv, Object.fromEntries(form))).status).toBe(200);
  });
});

requirement('oauth.code-intercepted', async () => {
  await withOAuth([], async (srv) => {
    const { clientId, verifier, code } = await approvedCode(srv, 0);
    const form = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT };
    // Whoever intercepted the code, without the verifier or the client: refused, nothing spent.
    expect((await tokenRequest(srv, { ...form, code_verifier: pkce().verifier })).body.error).toBe('invalid_grant');
    expect((await tokenRequest(srv, { ...form, client_id: await register(srv) })).body.error).toBe('invalid_grant');
    const exchanged = await tokenRequest(srv, form);
    expect(exchanged.status).toBe(200);
    // The replay rule holds: the same exchange again revokes what it gave.
    expect((await tokenRequest(srv, form)).body.error_description).toContain('already used');
    expect((await srv.request('/mcp', opening('legacy', { authorization: `Bearer ${exchanged.body.access_token as string}` }))).status).toBe(401);
  });
});

requirement('oauth.refresh-parallel', async ({ protocol }) => {
  await withOAuth([], async (srv) => {
    const { clientId, refreshToken } = await grantTokens(srv, 0);
    const form = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId };
    // Two tabs refresh with the same token at once: one gets the new pair, the other is refused.
    const answers = await Promise.all([tokenRequest(srv, form), tokenRequest(srv, form)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body.error_description).toContain('moments ago');
    const winner = answers.find((answer) => answer.status === 200)!.body;
    // The grant is kept: the new tokens work.
    expect((await srv.request('/mcp', opening(protocol, { authorization: `Bearer ${winner.access_token as string}` }))).status).toBe(200);
    expect((await tokenRequest(srv, { ...form, refresh_token: winner.refresh_token as string })).status).toBe(200);
    expect(JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout)).toMatchObject([{ state: 'active' }]);
  });
});
