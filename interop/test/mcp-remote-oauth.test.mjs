// @ts-check
// mcp-remote 0.15.1, a stdio-to-HTTP bridge no one here wrote, against zodexd --oauth: from the
// 401 it discovers the metadata, registers (RFC 7591), sends the browser to the approval page
// with PKCE S256 and a resource, and gets its code at its own callback server. The operator's part
// is done in Chromium: read the pairing code zodexd printed, type it, approve. Then a tool call.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { chromium } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { INTEROP, scratch, startZodexHttp } from '../lib/clients.mjs';
import { CHROMIUM, CHROMIUM_ARGS, approve, until } from '../lib/oauth-approval.mjs';

const MCP_REMOTE = process.env.MCP_REMOTE_PROXY ?? path.join(INTEROP, 'node_modules/mcp-remote/dist/proxy.js');

test('mcp-remote: discovery, registration, approval in Chromium, token, tool call', { timeout: 120_000 }, async () => {
  const space = scratch('mcp-remote-oauth');
  const zodexd = await startZodexHttp(['--oauth', '--state-dir', path.join(space.dir, 'state')]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_REMOTE, zodexd.url, '--host', '127.0.0.1'],
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: path.join(space.dir, 'auth'), BROWSER: 'true' },
    stderr: 'pipe',
  });
  let remote = '';
  transport.stderr?.on('data', (chunk) => {
    remote += chunk;
  });
  const client = new Client({ name: 'interop-mcp-remote', version: '1.0.0' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const connected = client.connect(transport);
    const authorizationUrl = /** @type {string} */ (
      await until(() => /Please authorize this client by visiting:\s+(\S+)/.exec(remote)?.[1], 'authorization URL from mcp-remote')
    );
    const asked = new URL(authorizationUrl);
    assert.equal(asked.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(asked.searchParams.get('resource'), zodexd.url);
    const page = await browser.newPage();
    await page.goto(authorizationUrl);
    assert.match(await page.locator('h1').innerText(), /mcp-remote|MCP/i);
    await approve(page, zodexd.stderr);
    await page.waitForURL(/127\.0\.0\.1:\d+\/oauth\/callback\?code=/);
    await connected;
    const result = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo through-mcp-remote-oauth', workdir: space.dir } });
    assert.match(JSON.stringify(result.structuredContent), /through-mcp-remote-oauth/);
    assert.match(zodexd.stderr(), /the operator approved ".*": grant zg_/);
  } finally {
    await browser.close();
    await client.close().catch(() => {});
    await zodexd.stop();
    space.remove();
  }
});
