// @ts-check
// What each client does with zodex's annotations: all-read-only (readOnlyHint true, destructiveHint false)
// against truthful (readOnlyHint false, destructiveHint true). Codex runs with approval_policy
// "on-request" and a read-only sandbox; Claude Code runs -p with and without --allowedTools.
// Run: node interop/measure/annotations.mjs [path/to/zodexd.js]   (needs --annotations; prints JSON lines)

import fs from 'node:fs';
import path from 'node:path';
import { anthropicToolResults, startAnthropicMock } from '../lib/mock-anthropic.mjs';
import { openAiToolResults, startOpenAiMock } from '../lib/mock-openai.mjs';
import { ZODEXD, claudeEnv, claudePrint, codexConfig, codexExec, jsonLines, scratch } from '../lib/clients.mjs';
import { echoScript, marker } from '../lib/scenario.mjs';

const zodexd = process.argv[2] ?? ZODEXD;
const TOOL = 'mcp__zodex__exec_command';

/** @param {Record<string, unknown>} row */
const print = (row) => console.log(JSON.stringify(row));

/** @param {string} annotations @param {string} policy @param {string} sandbox */
async function codex(annotations, policy, sandbox) {
  const space = scratch('ann-codex');
  const mark = marker();
  const mock = await startOpenAiMock(echoScript(TOOL, mark, space.dir));
  const servers = `[mcp_servers.zodex]\ncommand = "node"\nargs = ["${zodexd}", "--annotations", "${annotations}"]\nrequired = true\n`;
  const run = await codexExec(space.dir, codexConfig(mock.url, servers, { shell_tool: false }), 'Print a marker.', {
    args: ['-c', `approval_policy="${policy}"`, '-s', sandbox],
    timeoutMs: 60_000,
  });
  const results = mock.main.flatMap((r) => openAiToolResults(r.body));
  const events = jsonLines(run.stdout)
    .filter((e) => /approval|mcp_tool_call|error/.test(JSON.stringify(e)))
    .map((e) => JSON.stringify(e).slice(0, 300));
  print({
    client: 'codex exec',
    annotations,
    approval_policy: policy,
    sandbox,
    stderr: run.stderr.slice(-300),
    ran: results.some((r) => r.text.includes(`${mark}\\n`)),
    result: results[0]?.text.slice(0, 200),
    exit: run.code,
    ms: run.ms,
    events,
  });
  await mock.close();
  space.remove();
}

/** @param {string} annotations @param {string[]} args */
async function claude(annotations, args) {
  const space = scratch('ann-claude');
  const mark = marker();
  const mock = await startAnthropicMock(TOOL, echoScript(TOOL, mark, space.dir));
  const config = path.join(space.dir, 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { zodex: { command: 'node', args: [zodexd, '--annotations', annotations] } } }));
  const run = await claudePrint('Print a marker.', ['--mcp-config', config, '--strict-mcp-config', ...args], {
    cwd: space.dir,
    env: claudeEnv(space.dir, mock.url),
    timeoutMs: 60_000,
  });
  const results = mock.main.flatMap((r) => anthropicToolResults(r.body));
  const final = jsonLines(run.stdout).find((e) => e.type === 'result');
  print({
    client: 'claude -p',
    annotations,
    args: args.join(' '),
    ran: results.some((r) => r.text.includes(`${mark}\\n`)),
    result: results[0]?.text.slice(0, 200),
    denials: final?.permission_denials,
    exit: run.code,
    ms: run.ms,
  });
  await mock.close();
  space.remove();
}

for (const annotations of ['all-read-only', 'truthful']) {
  await Promise.all([
    codex(annotations, 'on-request', 'read-only'),
    codex(annotations, 'untrusted', 'read-only'),
    codex(annotations, 'never', 'read-only'),
    claude(annotations, []),
    claude(annotations, ['--allowedTools', 'mcp__zodex']),
    claude(annotations, ['--permission-mode', 'dontAsk']),
  ]);
}
