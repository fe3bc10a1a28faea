// @ts-check
// Measures how long each client waits on one slow tool call with its default settings: the model
// calls exec_command on `sleep S` with yield_time_ms S*1000 and we time the result it gets back.
// Run: node interop/measure/timeouts.mjs [seconds=290] [client-timeout-seconds]   (both clients at once;
// prints JSON lines). With a client timeout, Codex gets tool_timeout_sec and Claude Code MCP_TOOL_TIMEOUT.

import { anthropicToolResults, startAnthropicMock } from '../lib/mock-anthropic.mjs';
import { openAiToolResults, startOpenAiMock } from '../lib/mock-openai.mjs';
import { ZODEXD, claudeEnv, claudePrint, codexConfig, codexExec, scratch } from '../lib/clients.mjs';
import { pollScript } from '../lib/polling.mjs';
import fs from 'node:fs';
import path from 'node:path';

const seconds = Number(process.argv[2] ?? 290);
const limit = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const cmd = `sleep ${seconds}; echo slept-${seconds}`;

/** @param {string} client @param {number} started @param {{ at: number, text: string }[]} seen @param {{ code: number | null, ms: number }} run */
function report(client, started, seen, run) {
  const first = seen[0];
  console.log(
    JSON.stringify({
      client,
      asked_s: seconds,
      client_timeout_s: limit ?? 'default',
      result_after_s: first ? (first.at - started) / 1000 : null,
      result: first?.text.slice(0, 300),
      exit: run.code,
      total_s: run.ms / 1000,
    }),
  );
}

async function codex() {
  const space = scratch('measure-codex');
  /** @type {{ at: number, text: string }[]} */ const seen = [];
  const mock = await startOpenAiMock(
    pollScript('mcp__zodex__', { cmd, workdir: space.dir, yieldMs: seconds * 1000, maxPolls: 1 }, openAiToolResults, (e) => seen.push(e)),
  );
  const started = Date.now();
  const run = await codexExec(
    space.dir,
    codexConfig(
      mock.url,
      `[mcp_servers.zodex]\ncommand = "node"\nargs = ["${ZODEXD}"]\nrequired = true\n${limit === undefined ? '' : `tool_timeout_sec = ${limit}\n`}`,
      { shell_tool: false },
    ),
    'Run the slow command.',
    { timeoutMs: (seconds + 120) * 1000 },
  );
  report('codex', started, seen, run);
  await mock.close();
  space.remove();
}

async function claude() {
  const space = scratch('measure-claude');
  /** @type {{ at: number, text: string }[]} */ const seen = [];
  const mock = await startAnthropicMock(
    'mcp__zodex__exec_command',
    pollScript('mcp__zodex__', { cmd, workdir: space.dir, yieldMs: seconds * 1000, maxPolls: 1 }, anthropicToolResults, (e) => seen.push(e)),
  );
  const config = path.join(space.dir, 'mcp.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { zodex: { command: 'node', args: [ZODEXD] } } }));
  const started = Date.now();
  const run = await claudePrint('Run the slow command.', ['--mcp-config', config, '--strict-mcp-config', '--allowedTools', 'mcp__zodex'], {
    cwd: space.dir,
    env: { ...claudeEnv(space.dir, mock.url), ...(limit === undefined ? {} : { MCP_TOOL_TIMEOUT: String(limit * 1000) }) },
    timeoutMs: (seconds + 120) * 1000,
  });
  report('claude-code', started, seen, run);
  await mock.close();
  space.remove();
}

await Promise.all([codex(), claude()]);
