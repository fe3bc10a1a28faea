// What the OAuth attacks of issue 22 cost a zodexd --oauth now, each against the same server idle
// (the floor): one authorization request naming a 128 MiB client metadata document (declared by
// Content-Length, then chunked): the bytes the document server got to send before zodexd hung up
// and zodexd's peak RSS; 1,000 registrations from ten loopback sources: their time, the state
// database's size, and whether a newcomer still registers; and how long `zodex oauth revoke`
// takes to kill a running command of the grant (from the command's exit back to the shell).
// Usage: node bench/oauth-attacks.mjs

import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, ZODEXD, requireBuild, round, rssKiB, sampleRss, writeResult } from './lib.mjs';

requireBuild();
const HUGE = 128 * 1024 * 1024;
const REDIRECT = 'http://127.0.0.1:9/cb';
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-bench-oauth-'));
const stateDir = path.join(scratch, 'state');

const child = spawn(process.execPath, [ZODEXD, '--transport', 'http', '--listen', '127.0.0.1:0', '--oauth', '--mode', 'sprite', '--state-dir', stateDir], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
child.stderr.on('data', (chunk) => (stderr += chunk));
const until = async (find) => {
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const base = (await until(() => /serving over http on (\S+)/.exec(stderr)?.[1])).replace(/\/mcp$/, '');
const settle = async () => (await new Promise((resolve) => setTimeout(resolve, 1_500)), rssKiB(child.pid));

function request(pathAndQuery, { method = 'GET', headers = {}, body, localAddress } = {}) {
  const url = new URL(pathAndQuery, base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const register = (localAddress) =>
  request('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    localAddress,
  });
const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};
const authorizeUrl = (clientId, challenge) =>
  `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })}`;

const floorKiB = await settle();

// 1. A 128 MiB client metadata document, declared and chunked, written as fast as it is read.
const documents = {};
const host = http.createServer((req, res) => {
  const record = { sentBytes: 0 };
  documents[req.url] = record;
  res.writeHead(200, { 'content-type': 'application/json', ...(req.url === '/declared.json' ? { 'content-length': String(HUGE) } : {}) });
  const chunk = Buffer.alloc(64 * 1024, 32);
  const pump = () => {
    while (record.sentBytes < HUGE && !res.destroyed) {
      record.sentBytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.once('close', () => (record.closedAfterMs = Date.now() - record.started));
  record.started = Date.now();
  pump();
});
await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
const metadataDocument = {};
for (const name of ['declared', 'chunked']) {
  const clientId = `http://127.0.0.1:${host.address().port}/${name}.json`;
  const peak = sampleRss(child.pid, 10);
  const answer = await request(authorizeUrl(clientId, pkce().challenge));
  await until(() => documents[`/${name}.json`]?.closedAfterMs);
  metadataDocument[name] = {
    status: answer.status,
    sentBytes: documents[`/${name}.json`].sentBytes,
    hungUpAfterMs: documents[`/${name}.json`].closedAfterMs,
    peakRssKiB: peak.stop(),
  };
}
host.close();

// 2. 1,000 registrations from ten sources, 100 each, then a newcomer from an eleventh.
const started = Date.now();
for (let source = 10; source < 20; source++) await Promise.all(Array.from({ length: 100 }, () => register(`127.0.0.${source}`)));
const registrationSeconds = (Date.now() - started) / 1000;
const newcomer = await register('127.0.0.2');
const dbBytes = fs
  .readdirSync(stateDir)
  .filter((name) => name.startsWith('zodex.db'))
  .reduce((sum, name) => sum + fs.statSync(path.join(stateDir, name)).size, 0);

// 3. Revocation: an approved grant's running command, and how long until `zodex oauth revoke` has killed it.
const clientId = JSON.parse(newcomer.body).client_id;
const { verifier, challenge } = pkce();
const page = await request(authorizeUrl(clientId, challenge), { localAddress: '127.0.0.2' });
const meta = (name) => new RegExp(`<meta name="${name}" content="([^"]+)">`).exec(page.body)[1];
const pairing = await until(() => [...stderr.matchAll(/pairing code ([0-9A-Z]{5}-[0-9A-Z]{5})/g)].at(-1)?.[1]);
const decision = await request(`/oauth/authorize/decision?request=${meta('zodex-request')}`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', origin: base, 'x-zodex-approval': meta('zodex-approval') },
  body: JSON.stringify({ approve: true, pairing_code: pairing }),
});
const code = new URL(JSON.parse(decision.body).redirect).searchParams.get('code');
const token = JSON.parse(
  (
    await request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: REDIRECT }).toString(),
    })
  ).body,
).access_token;
const pidFile = path.join(scratch, 'command.pid');
const call = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'exec_command',
    arguments: { cmd: `echo $$ > ${pidFile}; exec sleep 300`, workdir: '/', yield_time_ms: 300 },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
};
await request('/mcp', {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'exec_command',
  },
  body: JSON.stringify(call),
});
const pid = Number(await until(() => (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()) || undefined));
const alive = () => fs.existsSync(`/proc/${pid}`);
const grantId = /grant (zg_\S+) \(zodex oauth revoke/.exec(stderr)[1];
const revokeStarted = Date.now();
await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist/cli/zodex.js'), 'oauth', 'revoke', grantId, '--state-dir', stateDir]);
const revokeCliMs = Date.now() - revokeStarted;
await until(() => (alive() ? undefined : true));
const revocation = { cliMs: revokeCliMs, killedAfterMs: Date.now() - revokeStarted };

const result = {
  floorRssKiB: floorKiB,
  metadataDocument,
  registrations: { count: 1_000, sources: 10, seconds: round(registrationSeconds, 1), newcomerStatus: newcomer.status, stateDatabaseBytes: dbBytes },
  revocation,
};
console.log(JSON.stringify(result, null, 2));
console.log(`wrote ${writeResult('oauth-attacks', result)}`);
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
fs.rmSync(scratch, { recursive: true, force: true });
