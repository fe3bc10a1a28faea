// The Liveboard's guardrails seen from a browser: it works offline (nothing is fetched from
// anywhere else), a page of another origin cannot act on sessions, a foreign Host is refused,
// and a token, when required, is shown once and kept as a cookie.

import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect, requirement } from '../harness/fixtures.js';
import { runZodexd } from '../harness/process.js';
import { agentIdOf, scratchStateDir, startBoard, useBoards, watchedConversation } from './board.js';

useBoards();

const LIVE_MS = 1_000;

requirement('liveboard.live', async ({ browser }) => {
  const board = await startBoard();
  const zodex = await board.conversation();
  const agentId = await agentIdOf(zodex);
  const origin = new URL(board.url).origin;
  const context = await browser.newContext();
  const requests: string[] = [];
  const blocked: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  // Offline: anything not addressed to the board itself is refused.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    blocked.push(url);
    return route.abort('internetdisconnected');
  });
  const page = await context.newPage();
  try {
    await page.goto(board.url);
    await expect(page.getByRole('status')).toHaveText('live');
    await expect(page.getByTestId(`agent-${agentId}`)).toBeVisible();

    const workdir = await zodex.scratch();
    await zodex.exec({ cmd: 'echo offline and live', workdir });
    const row = page
      .getByRole('table', { name: `Timeline of agent ${agentId}` })
      .getByTestId('timeline-row')
      .filter({ hasText: 'echo offline and live' });
    await expect(row).toContainText('exit 0', { timeout: LIVE_MS });

    expect(blocked).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    for (const url of requests) expect(new URL(url).origin).toBe(origin);
  } finally {
    await context.close();
  }
});

// A page on another origin (also loopback, another port) that tries to kill a session on the
// board: a fetch with the board's headers (needs a CORS preflight, never answered), a no-cors
// fetch, and a plain form POST.
function evilPage(target: string): string {
  return `<!doctype html><html><head><title>evil</title></head><body>
<form id="form" method="post" action="${target}" enctype="text/plain"><input name='{"x":"' value='"}'><button id="submit">go</button></form>
<script>
  fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zodex-Liveboard': 'guessed' }, body: '{}' })
    .then((r) => r.status, () => 'blocked')
    .then((outcome) => fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', body: '{}' }).then(() => outcome, () => outcome))
    .then((outcome) => { document.title = 'fetch ' + outcome; });
</script></body></html>`;
}

requirement('liveboard.guardrails', async ({ browser }) => {
  const { board, zodex, workdir, page } = await watchedConversation(browser);
  const sleeper = await zodex.exec({ cmd: 'sleep 60', workdir, yield_time_ms: 300 });
  expect(sleeper.status).toBe('running');
  const card = page.getByRole('article', { name: /^Session / }).filter({ hasText: 'sleep 60' });
  const sessionId = (await card.getAttribute('data-testid'))!.replace(/^session-/, '');
  const target = new URL(`/api/sessions/${sessionId}/kill`, board.url).href;

  const evil = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(evilPage(target));
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  try {
    const attacker = await (await browser.newContext()).newPage();
    await attacker.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
    await expect(attacker).toHaveTitle('fetch blocked');
    await attacker.locator('#submit').click();
    await expect(attacker.locator('body')).toContainText('Forbidden');
    await attacker.context().close();
  } finally {
    evil.close();
  }
  // The session lives on, and no operator action was recorded.
  const poll = await zodex.write({ session_handle: sleeper.session_handle!, yield_time_ms: 200 });
  expect(poll.status).toBe('running');
  expect((await board.history()).filter((row) => row.actor === 'operator')).toEqual([]);

  // DNS rebinding: a foreign Host is refused, with the flag that would admit it.
  const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(board.url, { headers: { host: 'attacker.example' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
  expect(rebound.status).toBe(403);
  expect(rebound.body).toMatch(/invalid Host header.*--allow-host attacker\.example/);

  // A non-loopback board without a token is refused at start.
  const refused = await runZodexd(['--transport', 'http', '--liveboard', '192.0.2.10:7392']);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/--liveboard 192\.0\.2\.10 is not a loopback address, so the Liveboard needs a token/);

  // With a token, a browser shows it once; the page then lives on a cookie, with a clean URL.
  const stateDir = scratchStateDir();
  const tokenFile = path.join(path.dirname(stateDir), 'token');
  const token = 'liveboard-conformance-token-0123456789';
  fs.writeFileSync(tokenFile, token, { mode: 0o600 });
  const guarded = await startBoard(['--auth-token-file', tokenFile], stateDir);
  expect(guarded.server.stderr()).not.toContain(token);
  const context = await browser.newContext();
  try {
    const visitor = await context.newPage();
    const denied = await visitor.goto(guarded.url);
    expect(denied?.status()).toBe(401);
    await visitor.goto(`${guarded.url}?token=${token}`);
    await expect(visitor).toHaveURL(guarded.url);
    await expect(visitor.getByRole('status')).toHaveText('live', { timeout: LIVE_MS * 5 });
    const cookies = await context.cookies();
    expect(cookies).toMatchObject([{ name: 'zodex_liveboard', httpOnly: true, sameSite: 'Strict' }]);
    expect(cookies[0]!.value).not.toContain(token);
  } finally {
    await context.close();
  }
});
