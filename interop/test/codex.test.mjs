// @ts-check
// Codex CLI 0.171.0 with each config.toml docs/clients.md shows: stdio, and HTTP with
// bearer_token_env_var; with its own shell tool hidden (features.shell_tool = false) and without.
// Each run replays a scripted exec_command call and checks the result the model received.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openAiToolResults, startOpenAiMock } from '../lib/mock-openai.mjs';
import { ZODEXD, codexConfig, codexExec, scratch, startZodexHttp } from '../lib/clients.mjs';
import { assertEchoed, echoScript, marker, zodexResults } from '../lib/scenario.mjs';

const TOOL = 'mcp__zodex__exec_command';

/** The tools a Responses request offers, namespaced ones as `namespace.tool`. @param {any} body @returns {string[]} */
function offered(body) {
  return (body?.tools ?? []).flatMap((/** @type {any} */ t) =>
    t.type === 'namespace' ? (t.tools ?? []).map((/** @type {any} */ inner) => `${t.name}.${inner.name}`) : [t.name ?? t.type],
  );
}

/**
 * Replays the echo script through `codex exec` with `servers` (TOML) and `features`.
 * @param {string} name @param {(dir: string) => string} servers @param {Record<string, boolean>} features @param {Record<string, string>} [env]
 */
async function echoThrough(name, servers, features, env = {}) {
  const space = scratch(name);
  const mark = marker();
  const mock = await startOpenAiMock(echoScript(TOOL, mark, space.dir));
  try {
    const result = await codexExec(space.dir, codexConfig(mock.url, servers(space.dir), features), 'Print a marker with the zodex tool.', { env });
    assert.equal(result.code, 0, `codex failed: ${result.stderr}\n${result.stdout.slice(-2000)}`);
    assertEchoed(zodexResults(mock, openAiToolResults), mark);
    assert.match(result.stdout, new RegExp(`"agent_message","text":"saw ${mark}"`));
    return offered(mock.main[0]?.body);
  } finally {
    await mock.close();
    space.remove();
  }
}

const STDIO = `[mcp_servers.zodex]\ncommand = "node"\nargs = ["${ZODEXD}"]\nrequired = true\n`;

test("config.toml, stdio, with Codex's own shell tool hidden (features.shell_tool = false)", async () => {
  const tools = await echoThrough('cx-stdio', () => STDIO, { shell_tool: false });
  for (const name of ['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias'])
    assert.ok(tools.includes(`mcp__zodex.${name}`), `${name} missing from ${tools}`);
  assert.deepEqual(
    tools.filter((name) => /^(exec_command|write_stdin|shell|shell_command|local_shell)$/.test(name)),
    [],
    `Codex still offers its own shell: ${tools}`,
  );
});

test("config.toml, stdio, default features: Codex offers its own exec_command beside zodex's", async () => {
  const tools = await echoThrough('cx-stdio-shell', () => STDIO, {});
  assert.ok(tools.includes('mcp__zodex.exec_command'), String(tools));
  assert.ok(tools.includes('exec_command'), `Codex's own exec_command is not offered: ${tools}`);
});

test('config.toml, HTTP with bearer_token_env_var', async () => {
  const token = 'interop-token-codex-0123456789';
  const server = await startZodexHttp([], { ZODEX_AUTH_TOKEN: token });
  try {
    const servers = `[mcp_servers.zodex]\nurl = "${server.url}"\nbearer_token_env_var = "ZODEX_AUTH_TOKEN"\nrequired = true\n`;
    await echoThrough('cx-http', () => servers, { shell_tool: false }, { ZODEX_AUTH_TOKEN: token });
  } finally {
    await server.stop();
  }
});

test('config.toml, HTTP, with the mcp_2026_07_28 feature: Codex speaks MCP 2026-07-28 and zodexd serves it without a session', async () => {
  const server = await startZodexHttp();
  try {
    const servers = `[mcp_servers.zodex]\nurl = "${server.url}"\nrequired = true\n`;
    await echoThrough('cx-http-modern', () => servers, { shell_tool: false, mcp_2026_07_28: true });
    assert.match(server.stderr(), /MCP 2026-07-28 request from "codex-mcp-client [\d.]+" \("server\/discover"\)/);
  } finally {
    await server.stop();
  }
});

test('config.toml, stdio, with the mcp_2026_07_28 feature (Codex 0.171 still initializes over stdio, with 2025-06-18): served', async () => {
  await echoThrough('cx-stdio-modern', () => STDIO, { shell_tool: false, mcp_2026_07_28: true });
});
