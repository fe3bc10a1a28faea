// @ts-check
// Claude Code 2.1.332 with each configuration docs/clients.md shows: a project .mcp.json (stdio, and
// HTTP with a bearer token), `claude mcp add` (both transports) and the plugin in plugins/.
// Each run replays a scripted exec_command call and checks the result the model received.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { anthropicToolResults, startAnthropicMock } from '../lib/mock-anthropic.mjs';
import { REPO, ZODEXD, claude, claudeEnv, claudePrint, jsonLines, run, scratch, startZodexHttp } from '../lib/clients.mjs';
import { assertEchoed, echoScript, marker, zodexResults } from '../lib/scenario.mjs';

const TOOL = 'mcp__zodex__exec_command';

/**
 * Replays the echo script through `claude -p` in `project` and checks what the model saw.
 * @param {string} home @param {string} project @param {string[]} args @param {string} [tool]
 * @param {(mockUrl: string) => Promise<void>} [setup] runs once the mock's URL is known
 */
async function echoThrough(home, project, args, tool = TOOL, setup = async () => {}) {
  const mark = marker();
  const mock = await startAnthropicMock(tool, echoScript(tool, mark, project));
  try {
    await setup(mock.url);
    const result = await claudePrint('Print a marker with the zodex tool.', args, { cwd: project, env: claudeEnv(home, mock.url) });
    assert.equal(result.code, 0, `claude failed: ${result.stderr}\n${result.stdout.slice(-2000)}`);
    assertEchoed(zodexResults(mock, anthropicToolResults), mark);
    const final = jsonLines(result.stdout).find((event) => event.type === 'result');
    assert.equal(final?.result, `saw ${mark}`);
    return mock;
  } finally {
    await mock.close();
  }
}

/** A scratch HOME with a project folder in it. @param {string} name */
function workspace(name) {
  const space = scratch(name);
  const project = path.join(space.dir, 'project');
  fs.mkdirSync(project);
  return { ...space, project };
}

test('.mcp.json, stdio: node …/dist/cli/zodexd.js', async () => {
  const space = workspace('cc-mcpjson-stdio');
  try {
    fs.writeFileSync(path.join(space.project, '.mcp.json'), JSON.stringify({ mcpServers: { zodex: { command: 'node', args: [ZODEXD] } } }, null, 2));
    await echoThrough(space.dir, space.project, ['--allowedTools', 'mcp__zodex']);
  } finally {
    space.remove();
  }
});

test('.mcp.json, stdio: npx zodexd in a project that installed zodex', async () => {
  const space = workspace('cc-mcpjson-npx');
  try {
    fs.writeFileSync(path.join(space.project, 'package.json'), '{ "name": "project", "private": true }\n');
    const install = await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--offline', '--ignore-scripts', REPO], {
      cwd: space.project,
      env: { ...process.env, HOME: space.dir },
      timeoutMs: 120_000,
    });
    assert.equal(install.code, 0, install.stderr);
    fs.writeFileSync(path.join(space.project, '.mcp.json'), JSON.stringify({ mcpServers: { zodex: { command: 'npx', args: ['zodexd'] } } }, null, 2));
    await echoThrough(space.dir, space.project, ['--allowedTools', 'mcp__zodex']);
  } finally {
    space.remove();
  }
});

test('.mcp.json, HTTP with a bearer token from the environment (Claude Code speaks 2026-07-28)', async () => {
  const space = workspace('cc-mcpjson-http');
  const token = 'interop-token-0123456789abcdef';
  const server = await startZodexHttp([], { ZODEX_AUTH_TOKEN: token });
  try {
    fs.writeFileSync(
      path.join(space.project, '.mcp.json'),
      JSON.stringify({ mcpServers: { zodex: { type: 'http', url: server.url, headers: { Authorization: 'Bearer ${ZODEX_AUTH_TOKEN}' } } } }, null, 2),
    );
    const env = { ZODEX_AUTH_TOKEN: token };
    const mark = marker();
    const mock = await startAnthropicMock(TOOL, echoScript(TOOL, mark, space.project));
    try {
      const result = await claudePrint('Print a marker with the zodex tool.', ['--allowedTools', 'mcp__zodex'], {
        cwd: space.project,
        env: { ...claudeEnv(space.dir, mock.url), ...env },
      });
      assert.equal(result.code, 0, result.stderr);
      assertEchoed(zodexResults(mock, anthropicToolResults), mark);
      // Claude Code 2.1.332 speaks MCP 2026-07-28 once zodexd answers its server/discover probe.
      assert.match(server.stderr(), /MCP 2026-07-28 request from "claude-code [\d.]+" /);
    } finally {
      await mock.close();
    }
  } finally {
    await server.stop();
    space.remove();
  }
});

test('claude mcp add, stdio', async () => {
  const space = workspace('cc-add-stdio');
  try {
    const env = claudeEnv(space.dir, 'http://127.0.0.1:9');
    const added = await claude(['mcp', 'add', 'zodex', '--', 'node', ZODEXD], { cwd: space.project, env });
    assert.equal(added.code, 0, added.stderr + added.stdout);
    await echoThrough(space.dir, space.project, ['--allowedTools', 'mcp__zodex']);
  } finally {
    space.remove();
  }
});

test('claude mcp add, HTTP with an Authorization header', async () => {
  const space = workspace('cc-add-http');
  const token = 'interop-token-fedcba9876543210';
  const server = await startZodexHttp([], { ZODEX_AUTH_TOKEN: token });
  try {
    const env = claudeEnv(space.dir, 'http://127.0.0.1:9');
    const added = await claude(['mcp', 'add', '--transport', 'http', 'zodex', server.url, '--header', `Authorization: Bearer ${token}`], {
      cwd: space.project,
      env,
    });
    assert.equal(added.code, 0, added.stderr + added.stdout);
    await echoThrough(space.dir, space.project, ['--allowedTools', 'mcp__zodex']);
  } finally {
    await server.stop();
    space.remove();
  }
});

test('the plugin in plugins/claude-code/zodex: its tools and its skill reach the model', async () => {
  const space = workspace('cc-plugin');
  const tool = 'mcp__plugin_zodex_zodex__exec_command';
  try {
    const mock = await echoThrough(
      space.dir,
      space.project,
      ['--plugin-dir', path.join(REPO, 'plugins/claude-code/zodex'), '--allowedTools', 'mcp__plugin_zodex_zodex'],
      tool,
    );
    const first = mock.main[0]?.body;
    const names = first.tools.map((/** @type {any} */ t) => t.name);
    for (const name of ['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias'])
      assert.ok(names.includes(`mcp__plugin_zodex_zodex__${name}`), `${name} missing from ${names}`);
    const prompt = JSON.stringify(first.system) + JSON.stringify(first.messages);
    assert.match(prompt, /- zodex:zodex: Run shell commands, long builds/, 'the skill is not listed to the model');
  } finally {
    space.remove();
  }
});
