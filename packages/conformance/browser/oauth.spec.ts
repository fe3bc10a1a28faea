// Issue 16 in a browser: the SDK's own OAuth client (@modelcontextprotocol/sdk/client/auth.js,
// which no one here wrote) goes from zodexd's 401 to a tool call, with the operator's approval
// given in Chromium by typing the pairing code zodexd printed; over TCP, and through a relay (a
// stand-in for a tunnel client) to --listen unix:. Then the page's CSP and CSRF from a browser,
// and the Liveboard's list of grants.

import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { ModernClientTransport, ModernHttpPipe } from '../harness/modern.js';
import {
  authorizationParams,
  grantTokens,
  mcpStatus,
  modernStatus,
  openAuthorization,
  pkce,
  register,
  scratchDir,
  startOAuthServer,
  stopOAuthServers,
  type OAuthServer,
} from '../harness/oauth.js';
import { useBoards } from './board.js';

useBoards();

const CALLBACK = 'http://127.0.0.1:9/oauth/callback'; // answered by the browser context's route

// An in-memory OAuthClientProvider: what an app would keep in its settings.
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  get redirectUrl(): string {
    return CALLBACK;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK conformance client',
      redirect_uris: [CALLBACK],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const servers: OAuthServer[] = [];
const closers: (() => unknown)[] = [];

async function cleanUp(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await Promise.resolve(close()).catch(() => {});
  for (const srv of servers.splice(0)) await srv.stop().catch(() => {});
  await stopOAuthServers();
}
// Also after a test that timed out (its finally blocks never ran).
test.afterEach(cleanUp);

// Runs body against a fresh --oauth zodexd (started with args) and a fresh browser context;
// everything is closed after it, whatever happened.
async function withServerAndBrowser(
  browser: Browser,
  args: string[],
  body: (srv: OAuthServer, context: BrowserContext) => Promise<void>,
  options: Parameters<typeof startOAuthServer>[1] = {},
): Promise<void> {
  try {
    const srv = await startOAuthServer(args, options);
    servers.push(srv);
    const context = await browser.newContext();
    closers.push(() => context.close());
    await body(srv, context);
  } finally {
    await cleanUp();
  }
}

// The operator's part: open the page the client sent the browser to, check what it says, type
// the pairing code zodexd printed, approve; resolves with the redirect the browser followed.
async function approveInBrowser(context: BrowserContext, srv: OAuthServer, authorizationUrl: URL, index: number): Promise<URL> {
  const followed = new Promise<URL>((resolve) => {
    void context.route(`${new URL(CALLBACK).origin}/**`, (route) => {
      resolve(new URL(route.request().url()));
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
    });
  });
  const page = await context.newPage();
  await page.goto(authorizationUrl.href);
  await expect(page.getByTestId('client-name')).toHaveText('SDK conformance client');
  await expect(page.getByTestId('redirect-host')).toContainText('127.0.0.1:9');
  await page.getByLabel('Pairing code').fill(await srv.pairingCode(index));
  await page.getByRole('button', { name: 'Approve' }).click();
  return followed;
}

// 401 -> discovery -> registration -> browser approval -> token -> exec_command, all by the SDK.
async function sdkFlow(context: BrowserContext, srv: OAuthServer): Promise<void> {
  const provider = new MemoryProvider();
  const first = new StreamableHTTPClientTransport(new URL(srv.mcpUrl), { authProvider: provider });
  await expect(new Client({ name: 'sdk-oauth', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
  expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(srv.mcpUrl);
  const back = await approveInBrowser(context, srv, provider.authorizationUrl!, 0);
  expect(back.searchParams.get('iss')).toBe(srv.base); // RFC 9207, which this SDK does not check itself
  await first.finishAuth(back.searchParams.get('code')!);
  expect(provider.tokens()?.access_token).toMatch(/^zat_/);
  const client = new Client({ name: 'sdk-oauth', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(srv.mcpUrl), { authProvider: provider });
  await client.connect(transport);
  closers.push(() => client.close());
  const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo authorized-by-oauth', workdir: os.tmpdir() } });
  expect(JSON.stringify(result.structuredContent)).toContain('authorized-by-oauth');
  expect(srv.server.stderr()).toContain('the operator approved "SDK conformance client"');
}

requirement('oauth.full-flow', async ({ browser }) => {
  await withServerAndBrowser(browser, [], (srv, context) => sdkFlow(context, srv));
});

// 2026-07-28: a modern request's 401 starts the SDK's OAuth provider (discovery from its
// resource_metadata, registration, PKCE); the operator approves in Chromium; then the suite's
// 2026 client (no initialize, no session) carries the token to a tools/call.
requirement('oauth.full-flow-modern', async ({ browser }) => {
  await withServerAndBrowser(browser, [], async (srv, context) => {
    const refused = await modernStatus(srv);
    expect(refused.status).toBe(401);
    const resourceMetadataUrl = new URL(/resource_metadata="([^"]+)"/.exec(refused.headers['www-authenticate'] ?? '')![1]!);
    const provider = new MemoryProvider();
    expect(await auth(provider, { serverUrl: srv.mcpUrl, resourceMetadataUrl })).toBe('REDIRECT');
    expect(provider.authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.authorizationUrl?.searchParams.get('resource')).toBe(srv.mcpUrl);
    const back = await approveInBrowser(context, srv, provider.authorizationUrl!, 0);
    expect(back.searchParams.get('iss')).toBe(srv.base);
    expect(await auth(provider, { serverUrl: srv.mcpUrl, resourceMetadataUrl, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
    const token = provider.tokens()!.access_token;
    expect(token).toMatch(/^zat_/);
    const client = new Client({ name: 'sdk-oauth-modern', version: '1.0.0' });
    await client.connect(new ModernClientTransport(new ModernHttpPipe(srv.mcpUrl, { authorization: `Bearer ${token}` })));
    closers.push(() => client.close());
    const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo authorized-in-2026', workdir: os.tmpdir() } });
    expect(JSON.stringify(result.structuredContent)).toContain('authorized-in-2026');
    // The calls went as 2026-07-28 requests (zodexd logs each modern client once).
    expect(srv.server.stderr()).toContain('MCP 2026-07-28 request from "zodex-conformance 1.0.0" ("server/discover")');
  });
});

requirement('oauth.full-flow-unix', async ({ browser }) => {
  const dir = scratchDir('zodex-oauth-unix-');
  const socketPath = path.join(dir, 'run', 'mcp.sock');
  // The relay: what a tunnel client does, bytes from a TCP port to the socket.
  const relay = net.createServer((socket) => {
    const upstream = net.connect(socketPath);
    socket.pipe(upstream).pipe(socket);
    const end = () => (socket.destroy(), upstream.destroy());
    socket.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  closers.push(() => relay.close());
  closers.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const base = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
  await withServerAndBrowser(
    browser,
    ['--listen', `unix:${socketPath}`],
    async (srv, context) => {
      expect(srv.server.stderr()).toContain(`serving over http on unix:${socketPath}`);
      await sdkFlow(context, srv);
    },
    { base },
  );
});

requirement('oauth.approval-csrf-browser', async ({ browser }) => {
  try {
    const srv = await startOAuthServer();
    servers.push(srv);
    const clientId = await register(srv, [CALLBACK], 'SDK conformance client');
    const opened = await openAuthorization(srv, authorizationParams(clientId, pkce().challenge, { redirect_uri: CALLBACK }));
    expect(opened.response.status).toBe(200);
    // A page of another origin (also loopback) posts the decision, with the right pairing code.
    const code = await srv.pairingCode(0);
    const evil = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(evilPage(`${srv.base}/oauth/authorize/decision?request=${opened.requestId}`, code));
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    closers.push(() => evil.close());
    const port = (evil.address() as AddressInfo).port;
    const context = await browser.newContext();
    closers.push(() => context.close());
    const page = await context.newPage();
    const answers: number[] = [];
    page.on('response', (response) => response.url().includes('/oauth/authorize/decision') && answers.push(response.status()));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.locator('#submit').click();
    await expect.poll(() => answers.length).toBeGreaterThanOrEqual(1); // the form post reached zodexd
    expect(answers.every((status) => status === 403 || status === 405)).toBe(true); // 405: the preflight
    expect(srv.server.stderr()).not.toContain('the operator approved');
    // The genuine page: nothing from anywhere else, under the nonce CSP.
    const own = await browser.newContext();
    closers.push(() => own.close());
    const seen: string[] = [];
    own.on('request', (request) => seen.push(request.url()));
    const approval = await own.newPage();
    const response = await approval.goto(
      `${srv.base}/oauth/authorize?${new URLSearchParams(authorizationParams(clientId, pkce().challenge, { redirect_uri: CALLBACK }))}`,
    );
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(approval.getByTestId('client-name')).toHaveText('SDK conformance client');
    for (const url of seen) expect(new URL(url).origin).toBe(srv.base);
  } finally {
    await cleanUp();
  }
});

function evilPage(target: string, code: string): string {
  const body = JSON.stringify({ approve: true, pairing_code: code });
  return `<!doctype html><html><body>
<form id="form" method="post" action="${target}" enctype="text/plain"><input name='${body.slice(0, -1)},"x":"' value='"}'><button id="submit">go</button></form>
<script>
  fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zodex-Approval': 'guessed' }, body: ${JSON.stringify(body)} }).catch(() => {});
  fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: ${JSON.stringify(body)} }).catch(() => {});
</script></body></html>`;
}

requirement('oauth.liveboard-grants', async ({ browser }) => {
  await withServerAndBrowser(browser, ['--liveboard', '127.0.0.1:0'], async (srv, context) => {
    const board = /liveboard on (http:\/\/\S+\/)/.exec(srv.server.stderr())?.[1];
    expect(board).toBeDefined();
    const { accessToken } = await grantTokens(srv, 0);
    const page = await context.newPage();
    await page.goto(board!);
    await page.getByRole('link', { name: 'OAuth clients' }).click();
    const row = page.getByTestId('grant-row');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('scripted client');
    expect((await mcpStatus(srv, accessToken)).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke scripted client' }).click();
    await expect(page.getByTestId('no-grants')).toBeVisible();
    expect((await mcpStatus(srv, accessToken)).status).toBe(401);
  });
});
