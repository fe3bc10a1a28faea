// OAuth from the outside: a zodexd started with --oauth (over TCP or a Unix socket), the pairing
// codes it prints, and a scripted OAuth client (register, authorize, decide like the approval
// page, exchange) for the negative cases that no well-behaved client would produce. Every server
// started here is stopped, and its scratch state dir removed, by stopOAuthServers() (specs call
// it after each test, so a test that times out leaves nothing behind either).

import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { modernHeaders } from './modern.js';
import { INITIALIZE, MCP_HEADERS, rawRequest, type RawResponse } from './raw-http.js';
import { REPO_ROOT, stopServer, ZODEXD, type ManagedServer } from './target.js';

export const REDIRECT = 'http://127.0.0.1:9/callback'; // never dialled: the tests read the redirect
const PAIRING = /pairing code ([0-9A-Z]{5}-[0-9A-Z]{5})/g;

export interface OAuthServer {
  base: string; // http://127.0.0.1:PORT, the issuer (or the address the socket is reached as)
  mcpUrl: string;
  stateDir: string;
  socketPath: string | undefined;
  server: ManagedServer;
  // The pairing code printed for the n-th authorization request (0-based), once it is printed.
  pairingCode(index: number): Promise<string>;
  request(pathAndQuery: string, options?: Parameters<typeof rawRequest>[1]): Promise<RawResponse>;
  stop(): Promise<void>;
}

export function scratchDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

const running = new Set<OAuthServer>();

export async function stopOAuthServers(): Promise<void> {
  await Promise.all([...running].map((srv) => srv.stop().catch(() => undefined)));
}

// `base` (for a Unix socket): the URL clients address it as, e.g. a tunnel's.
export async function startOAuthServer(
  args: string[] = [],
  options: { stateDir?: string; base?: string; env?: Record<string, string> } = {},
): Promise<OAuthServer> {
  const scratch = options.stateDir === undefined ? scratchDir('zodex-oauth-') : undefined;
  const stateDir = options.stateDir ?? path.join(scratch!, 'state');
  const listenAt = args.indexOf('--listen');
  const socketPath = listenAt >= 0 && args[listenAt + 1]!.startsWith('unix:') ? args[listenAt + 1]!.slice(5) : undefined;
  const child = spawn(
    process.execPath,
    [ZODEXD, '--transport', 'http', ...(listenAt >= 0 ? [] : ['--listen', '127.0.0.1:0']), '--oauth', '--state-dir', stateDir, ...args],
    {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = <T>(find: () => T | undefined, what: string, ms = 10_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`zodexd did not print ${what} within ${ms} ms; stderr:\n${stderr}`));
      }, ms);
      waiters.add(check);
      void exited.then(() =>
        waiters.has(check) ? (waiters.delete(check), clearTimeout(timer), reject(new Error(`zodexd exited; stderr:\n${stderr}`))) : undefined,
      );
      check();
    });
  const removeScratch = () => scratch && fs.rmSync(scratch, { recursive: true, force: true });
  const served = await until(() => /serving over http on (\S+)/.exec(stderr)?.[1], 'its serving line').catch((error: Error) => {
    child.kill('SIGKILL');
    removeScratch();
    throw error;
  });
  const base = options.base ?? served.replace(/\/mcp$/, '');
  const server: ManagedServer = { process: child, pid: child.pid!, stderr: () => stderr, url: `${base}/mcp`, exited };
  const srv: OAuthServer = {
    base,
    mcpUrl: `${base}/mcp`,
    stateDir,
    socketPath,
    server,
    pairingCode: (index) => until(() => [...stderr.matchAll(PAIRING)][index]?.[1], `pairing code #${index + 1}`),
    request: (pathAndQuery, requestOptions = {}) => rawRequest(`${base}${pathAndQuery}`, { ...requestOptions, ...(socketPath ? { socketPath } : {}) }),
    async stop() {
      running.delete(srv);
      await stopServer(server);
      removeScratch();
    },
  };
  running.add(srv);
  return srv;
}

// Runs `body` against a fresh zodexd --oauth, stopped afterwards whatever happens.
export async function withOAuth(
  args: string[],
  body: (srv: OAuthServer) => Promise<void>,
  options: Parameters<typeof startOAuthServer>[1] = {},
): Promise<void> {
  const srv = await startOAuthServer(args, options);
  try {
    await body(srv);
  } finally {
    await srv.stop();
  }
}

// `zodex oauth ARGS` on the server's state dir (the operator's side: pair, clients, revoke).
export const oauthCli = (srv: OAuthServer, ...args: string[]) =>
  promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'dist/cli/zodex.js'), 'oauth', ...args, '--state-dir', srv.stateDir]);

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const json = (response: RawResponse): Record<string, unknown> => JSON.parse(response.body) as Record<string, unknown>;

export async function register(srv: OAuthServer, redirectUris: string[] = [REDIRECT], name = 'scripted client'): Promise<string> {
  const response = await srv.request('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.body}`);
  return json(response).client_id as string;
}

export interface Opened {
  response: RawResponse;
  csrf: string | undefined;
  requestId: string | undefined;
}

export async function openAuthorization(
  srv: OAuthServer,
  params: Record<string, string>,
  options: Parameters<OAuthServer['request']>[1] = {},
): Promise<Opened> {
  const response = await srv.request(`/oauth/authorize?${new URLSearchParams(params)}`, options);
  const meta = (name: string) => new RegExp(`<meta name="${name}" content="([^"]+)">`).exec(response.body)?.[1];
  return { response, csrf: meta('zodex-approval'), requestId: meta('zodex-request') };
}

export function authorizationParams(clientId: string, challenge: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    ...extra,
  };
}

// What the approval page's script sends; `headers` overrides (CSRF tests).
export function decide(srv: OAuthServer, opened: Opened, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<RawResponse> {
  return srv.request(`/oauth/authorize/decision?request=${opened.requestId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: srv.base, 'x-zodex-approval': opened.csrf ?? '', ...headers },
    body: JSON.stringify(body),
  });
}

export async function tokenRequest(srv: OAuthServer, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await srv.request('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, body: json(response) };
}

// A whole approval, as the operator would give it: register, open, type the printed code.
export async function approvedCode(
  srv: OAuthServer,
  index: number,
  clientId?: string,
): Promise<{ clientId: string; verifier: string; code: string; redirect: URL }> {
  const id = clientId ?? (await register(srv));
  const { verifier, challenge } = pkce();
  const opened = await openAuthorization(srv, authorizationParams(id, challenge, { resource: srv.mcpUrl }));
  if (opened.response.status !== 200) throw new Error(`authorize: ${opened.response.status} ${opened.response.body}`);
  const answer = await decide(srv, opened, { approve: true, pairing_code: await srv.pairingCode(index) });
  const redirect = new URL(json(answer).redirect as string);
  return { clientId: id, verifier, code: redirect.searchParams.get('code')!, redirect };
}

export async function grantTokens(srv: OAuthServer, index: number): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const { clientId, verifier, code } = await approvedCode(srv, index);
  const answer = await tokenRequest(srv, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: srv.mcpUrl,
  });
  if (answer.status !== 200) throw new Error(`token: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { clientId, accessToken: answer.body.access_token as string, refreshToken: answer.body.refresh_token as string };
}

// What an MCP initialize (2025-11-25) gets with this bearer token (or none).
export async function mcpStatus(srv: OAuthServer, token?: string): Promise<RawResponse> {
  return srv.request('/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: INITIALIZE() });
}

// What a 2026-07-28 request (server/discover, no session) gets: the bearer rule comes before
// either era's handling, so it must hold the same way for both.
export async function modernStatus(srv: OAuthServer, token?: string): Promise<RawResponse> {
  const discover = {
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const headers = { ...MCP_HEADERS, ...modernHeaders(discover), ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return srv.request('/mcp', { method: 'POST', headers, body: JSON.stringify(discover) });
}
