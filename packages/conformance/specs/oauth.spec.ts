// Issue 16: zodexd --oauth seen from a scripted OAuth client. Discovery, the static token beside
// OAuth, and every negative case (wrong redirect, PKCE mismatch, replayed code, expired, revoked
// and foreign tokens, never-approved clients, CSRF on the decision) without a browser; the
// browser project drives the same server with the SDK's OAuth client and Chromium. What concerns
// /mcp is asked in the project's era (http: 2025-11-25, http-modern: 2026-07-28, harness/oauth-era);
// --public-url and --listen unix: are in oauth-tunnel.spec.ts.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import {
  approvedCode,
  authorizationParams,
  decide,
  grantTokens,
  json,
  mcpStatus,
  oauthCli,
  openAuthorization,
  pkce,
  REDIRECT,
  register,
  startOAuthServer,
  stopOAuthServers,
  withOAuth,
  tokenRequest,
  type OAuthServer,
} from '../harness/oauth.js';
import { endpoint, opening, toolCaller } from '../harness/oauth-era.js';
import { MCP_HEADERS, rawRequest } from '../harness/raw-http.js';
import { REPO_ROOT, startHttpServer, stopServer } from '../harness/target.js';

const STATIC_TOKEN = 'static-token-0123456789abcdef';

// Also after a test that timed out (its finally blocks never ran).
test.afterEach(stopOAuthServers);

requirement('oauth.discovery', async ({ protocol }) => {
  const status = endpoint(protocol);
  await withOAuth([], async (srv) => {
    const refused = await status(srv);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(`Bearer resource_metadata="${srv.base}/.well-known/oauth-protected-resource/mcp", scope="zodex"`);
    // The same challenge whichever era asks.
    const other = await endpoint(protocol === 'modern' ? 'legacy' : 'modern')(srv);
    expect(other.status).toBe(401);
    expect(other.headers['www-authenticate']).toBe(refused.headers['www-authenticate']);
    for (const where of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const metadata = json(await srv.request(where));
      expect(metadata).toMatchObject({ resource: srv.mcpUrl, authorization_servers: [srv.base], scopes_supported: ['zodex'] });
    }
    const server = json(await srv.request('/.well-known/oauth-authorization-server'));
    expect(server).toMatchObject({
      issuer: srv.base,
      authorization_endpoint: `${srv.base}/oauth/authorize`,
      token_endpoint: `${srv.base}/oauth/token`,
      registration_endpoint: `${srv.base}/oauth/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    // A Host the rule admits gives its own URLs.
    const elsewhere = json(await srv.request('/.well-known/oauth-protected-resource', { headers: { host: `localhost:${new URL(srv.base).port}` } }));
    expect(elsewhere.resource).toBe(`http://localhost:${new URL(srv.base).port}/mcp`);
  });
});

requirement('oauth.static-token-only', async ({ protocol }) => {
  const status = endpoint(protocol);
  const plain = await startHttpServer([], { ZODEX_AUTH_TOKEN: STATIC_TOKEN });
  try {
    const base = plain.url.replace(/\/mcp$/, '');
    for (const where of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/oauth/register',
    ]) {
      expect((await rawRequest(`${base}${where}`)).status).toBe(404);
    }
    const refused = await rawRequest(plain.url, opening(protocol));
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).not.toContain('resource_metadata');
  } finally {
    await stopServer(plain);
  }
  await withOAuth(
    [],
    async (srv) => {
      expect((await status(srv, STATIC_TOKEN)).status).toBe(200);
      expect((await status(srv, `${STATIC_TOKEN}x`)).status).toBe(401);
    },
    { env: { ZODEX_AUTH_TOKEN: STATIC_TOKEN } },
  );
});

requirement('oauth.wrong-redirect', async () => {
  await withOAuth([], async (srv) => {
    const clientId = await register(srv);
    const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:9/elsewhere' }));
    expect(opened.response.status).toBe(400);
    expect(opened.response.headers.location).toBeUndefined();
    expect(opened.response.body).toContain('is not one the client registered');
    expect(opened.requestId).toBeUndefined();
    const evil = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: 'https://evil.example/cb' }));
    expect(evil.response.status).toBe(400);
    expect(srv.server.stderr()).not.toMatch(/pairing code [0-9A-Z]{5}-/);
    // Registration itself refuses redirects that cannot receive a code safely.
    for (const uri of ['http://evil.example/cb', 'javascript:alert(1)', 'https://x.example/cb#frag']) {
      const answer = await srv.request('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [uri] }),
      });
      expect(answer.status).toBe(400);
      expect(json(answer).error).toBe('invalid_redirect_uri');
    }
  });
});

requirement('oauth.pkce-mismatch', async () => {
  await withOAuth([], async (srv) => {
    const { clientId, code } = await approvedCode(srv, 0);
    const wrong = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce().verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ error: 'invalid_grant' });
    expect(wrong.body.error_description).toContain('PKCE');
    expect(wrong.body.access_token).toBeUndefined();
    // No challenge, or a plain one: refused back to the client before any approval.
    for (const extra of [{ code_challenge: '' }, { code_challenge_method: 'plain' }] as Record<string, string>[]) {
      const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, extra));
      expect(opened.response.status).toBe(302);
      const back = new URL(opened.response.headers.location!);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('iss')).toBe(srv.base);
    }
  });
});

requirement('oauth.code-replay', async ({ protocol }) => {
  const status = endpoint(protocol);
  await withOAuth([], async (srv) => {
    const { clientId, verifier, code } = await approvedCode(srv, 0);
    const form = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT };
    const first = await tokenRequest(srv, form);
    expect(first.status).toBe(200);
    expect((await status(srv, first.body.access_token as string)).status).toBe(200);
    const again = await tokenRequest(srv, form);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect((await status(srv, first.body.access_token as string)).status).toBe(401);
  });
});

requirement('oauth.token-expired', async ({ protocol }) => {
  const status = endpoint(protocol);
  await withOAuth(['--oauth-token-ttl-ms', '1500'], async (srv) => {
    const { clientId, accessToken, refreshToken } = await grantTokens(srv, 0);
    expect((await status(srv, accessToken)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    const expired = await status(srv, accessToken);
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(expired.headers['www-authenticate']).toContain('expired');
    const renewed = await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(renewed.status).toBe(200);
    expect((await status(srv, renewed.body.access_token as string)).status).toBe(200);
  });
});

requirement('oauth.token-revoked', async ({ protocol }) => {
  const status = endpoint(protocol);
  await withOAuth([], async (srv) => {
    const { clientId, accessToken, refreshToken } = await grantTokens(srv, 0);
    const listed = JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout) as { id: string; clientName: string; state: string }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ clientName: 'scripted client', state: 'active' });
    await oauthCli(srv, 'revoke', listed[0]!.id);
    const refused = await status(srv, accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    expect((await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId })).body.error).toBe('invalid_grant');
    expect(JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout)).toEqual([]);
  });
});

requirement('oauth.other-resource', async ({ protocol }) => {
  const status = endpoint(protocol);
  await withOAuth([], async (first) => {
    const { accessToken } = await grantTokens(first, 0);
    await withOAuth(
      [],
      async (second) => {
        const refused = await status(second, accessToken);
        expect(refused.status).toBe(401);
        expect(refused.headers['www-authenticate']).toContain(`not for ${second.mcpUrl}`);
        const clientId = await register(second);
        const opened = await openAuthorization(second, authorizationParams(clientId, pkce().challenge, { resource: first.mcpUrl }));
        expect(new URL(opened.response.headers.location!).searchParams.get('error')).toBe('invalid_target');
      },
      { stateDir: first.stateDir },
    );
    expect((await status(first, accessToken)).status).toBe(200);
  });
});

requirement('oauth.never-approved', async () => {
  await withOAuth([], async (srv) => {
    const clientId = await register(srv);
    const invented = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code: 'zac_invented',
      code_verifier: pkce().verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(invented.body.error).toBe('invalid_grant');
    const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    for (let attempt = 1; attempt < 5; attempt++) {
      const wrong = await decide(srv, opened, { approve: true, pairing_code: 'AAAAA-AAAAA' });
      expect(wrong.status).toBe(403);
      expect(json(wrong)).toMatchObject({ attemptsLeft: 5 - attempt });
      expect(json(wrong).redirect).toBeUndefined();
    }
    const fifth = await decide(srv, opened, { approve: true, pairing_code: 'AAAAA-AAAAA' });
    expect(fifth.status).toBe(403);
    const refused = new URL(json(fifth).redirect as string);
    expect(refused.searchParams.get('error')).toBe('access_denied');
    expect(refused.searchParams.get('code')).toBeNull();
    // The right code, too late: the request is gone.
    expect((await decide(srv, opened, { approve: true, pairing_code: await srv.pairingCode(0) })).status).toBe(404);
    const denied = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    const answer = new URL(json(await decide(srv, denied, { approve: false })).redirect as string);
    expect(Object.fromEntries(answer.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-1', iss: srv.base });
    expect(JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout)).toEqual([]);
  });
});

requirement('oauth.approval-csrf', async () => {
  await withOAuth([], async (srv) => {
    const clientId = await register(srv);
    const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    const code = await srv.pairingCode(0);
    const attempts: Record<string, string>[] = [
      { 'x-zodex-approval': '' },
      { 'x-zodex-approval': 'guessed' },
      { origin: `http://127.0.0.1:${Number(new URL(srv.base).port) + 1}` },
      { origin: 'http://evil.example' },
      { 'content-type': 'text/plain' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of attempts) {
      const answer = await decide(srv, opened, { approve: true, pairing_code: code }, headers);
      expect([403, 415]).toContain(answer.status);
      expect(answer.body).not.toContain('code=');
    }
    expect(JSON.parse((await oauthCli(srv, 'clients', '--json')).stdout)).toEqual([]);
    // The page itself: the Liveboard's nonce CSP, never framed.
    expect(opened.response.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'nonce-[^']+'/);
    expect(opened.response.headers['x-frame-options']).toBe('DENY');
    // The genuine page's request still works afterwards.
    expect(json(await decide(srv, opened, { approve: true, pairing_code: code })).redirect).toContain('code=');
  });
});

requirement('oauth.refresh-rotation', async ({ protocol }) => {
  const status = endpoint(protocol);
  await withOAuth([], async (srv) => {
    const { clientId, accessToken, refreshToken } = await grantTokens(srv, 0);
    const rotated = await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(refreshToken);
    const newAccess = rotated.body.access_token as string;
    expect((await status(srv, newAccess)).status).toBe(200);
    // The old refresh token again at once: a parallel refresh, refused, the grant kept.
    const parallel = await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(parallel.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('moments ago') });
    expect((await status(srv, newAccess)).status).toBe(200);
    // Again after the 10 s grace: a thief or a replay. The whole grant goes.
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const reused = await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    expect(reused.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('revoked') });
    for (const token of [accessToken, newAccess]) expect((await status(srv, token)).status).toBe(401);
    expect(
      (await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: rotated.body.refresh_token as string, client_id: clientId })).body.error,
    ).toBe('invalid_grant');
    // Only hashes on disk: no token or code in the database files.
    const files = fs.readdirSync(srv.stateDir).filter((name) => name.startsWith('zodex.db'));
    const disk = files.map((name) => fs.readFileSync(path.join(srv.stateDir, name)).toString('latin1')).join('');
    for (const secret of [accessToken, refreshToken, newAccess, rotated.body.refresh_token as string, await srv.pairingCode(0)])
      expect(disk).not.toContain(secret);
  });
});

requirement('oauth.iss', async () => {
  await withOAuth([], async (srv) => {
    const { redirect } = await approvedCode(srv, 0);
    expect(redirect.searchParams.get('iss')).toBe(srv.base);
    expect(redirect.searchParams.get('state')).toBe('st-1');
    const clientId = await register(srv);
    const failed = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { response_type: 'token' }));
    const back = new URL(failed.response.headers.location!);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'unsupported_response_type', iss: srv.base, state: 'st-1' });
  });
});

requirement('oauth.client-metadata-document', async () => {
  let document: Record<string, unknown> = {};
  const host = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  const clientId = `http://127.0.0.1:${(host.address() as AddressInfo).port}/client.json`;
  try {
    await withOAuth([], async (srv) => {
      document = { client_id: clientId, client_name: 'Document Client', redirect_uris: [REDIRECT] };
      const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
      expect(opened.response.status).toBe(200);
      expect(opened.response.body).toContain('Document Client');
      const code = await srv.pairingCode(0);
      expect(srv.server.stderr()).toContain('"Document Client" (redirect to 127.0.0.1:9) asks for access');
      expect(json(await decide(srv, opened, { approve: true, pairing_code: code })).redirect).toContain('code=');
      expect(
        (await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:9/other' }))).response.status,
      ).toBe(400);
      document = { client_id: 'http://127.0.0.1:1/someone-else.json', client_name: 'Impostor', redirect_uris: [REDIRECT] };
      const impostor = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
      expect(impostor.response.status).toBe(400);
      expect(impostor.response.body).toContain('it must be exactly its own URL');
    });
  } finally {
    host.close();
  }
});

requirement('oauth.pair-cli', async () => {
  await withOAuth([], async (srv) => {
    const code = (await oauthCli(srv, 'pair')).stdout.trim();
    expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    const clientId = await register(srv);
    const first = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    expect(json(await decide(srv, first, { approve: true, pairing_code: code.toLowerCase() })).redirect).toContain('code=');
    const second = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge));
    expect((await decide(srv, second, { approve: true, pairing_code: code })).status).toBe(403);
  });
});

requirement('oauth.session-bound', async ({ protocol }) => {
  await withOAuth(
    [],
    async (srv) => {
      const first = await grantTokens(srv, 0);
      const second = await grantTokens(srv, 1);
      if (protocol === 'legacy') {
        // A session belongs to the grant that opened it.
        const opened = await mcpStatus(srv, first.accessToken);
        const sessionId = String(opened.headers['mcp-session-id']);
        const list = (token: string) =>
          srv.request('/mcp', {
            method: 'POST',
            headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
          });
        expect((await list(second.accessToken)).status).toBe(404);
        expect((await list(STATIC_TOKEN)).status).toBe(404);
        expect((await list(first.accessToken)).status).toBe(200);
      }
      // Both eras: a session_handle belongs to the grant whose call started the command; from
      // another grant or the static token (its own session, or the same _meta thread) it is unknown.
      const owner = await toolCaller(srv, protocol, first.accessToken);
      const started = await owner('exec_command', { cmd: 'sleep 30', workdir: srv.stateDir, yield_time_ms: 100 });
      const handle = (started.reply?.result?.structuredContent as { session_handle?: string } | undefined)?.session_handle;
      expect(handle, JSON.stringify(started.reply)).toMatch(/^zs_/);
      for (const token of [second.accessToken, STATIC_TOKEN]) {
        const stranger = protocol === 'legacy' ? await toolCaller(srv, protocol, token) : owner;
        const refused = await stranger('write_stdin', { session_handle: handle, kill_process: true }, token);
        expect(refused.status).toBe(200);
        expect(refused.reply?.result?.isError).toBe(true);
        expect(JSON.stringify(refused.reply?.result)).toContain('UNKNOWN_SESSION');
      }
      const killed = await owner('write_stdin', { session_handle: handle, kill_process: true });
      expect((killed.reply?.result?.structuredContent as { termination_reason?: string } | undefined)?.termination_reason).toBe('killed');
    },
    { env: { ZODEX_AUTH_TOKEN: STATIC_TOKEN } },
  );
});
