// @ts-check
// Issue 13, deliverable 4: each client with its default settings runs a 65 s command that the
// model starts with yield_time_ms 65 000, as a model would. zodexd caps the wait (--max-yield-ms),
// so the model gets `running` and a handle, polls with write_stdin, and ends with the output.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { anthropicToolResults, startAnthropicMock } from '../lib/mock-anthropic.mjs';
import { openAiToolResults, startOpenAiMock } from '../lib/mock-openai.mjs';
import { ZODEXD, claudeEnv, claudePrint, codexConfig, codexExec, scratch } from '../lib/clients.mjs';
import { pollScript } from '../lib/polling.mjs';
import { marker } from '../lib/scenario.mjs';

const SECONDS = 65;

/** What the model was given, in order: parsed results, or the raw text of a failed call. @param {{ text: string }[]} seen */
function parsed(seen) {
  return seen.map(({ text }) => {
    try {
      return JSON.parse(text.slice(text.indexOf('{')));
    } catch {
      return { failed: text.slice(0, 300) };
    }
  });
}

/** The model got a handle first and the command's last line through it at the end. @param {any[]} results @param {string} mark */
function assertThroughHandle(results, mark) {
  const summary = JSON.stringify(results).slice(0, 1500);
  assert.ok(results.length >= 2, `expected a running result then polls: ${summary}`);
  assert.equal(results[0].status, 'running', `the first call did not return a handle: ${summary}`);
  assert.ok(results[0].yield_time_ms < SECONDS * 1000, `the server did not cap the ${SECONDS} s yield: ${summary}`);
  assert.match(results[0].session_handle ?? '', /^zs_/);
  const last = results.at(-1);
  assert.equal(last.status, 'exited', summary);
  assert.equal(last.exit_code, 0, summary);
  assert.match(results.map((r) => r.output ?? '').join(''), new RegExp(`${mark}\\n`), summary);
}

test(`a ${SECONDS} s command through each client with default settings`, { concurrency: 2 }, async (t) => {
  await Promise.all([
    t.test('Codex CLI', async () => {
      const space = scratch('long-codex');
      const mark = marker();
      /** @type {{ at: number, text: string }[]} */ const seen = [];
      const script = pollScript(
        'mcp__zodex__',
        { cmd: `sleep ${SECONDS}; echo ${mark}`, workdir: space.dir, yieldMs: SECONDS * 1000 },
        openAiToolResults,
        (e) => seen.push(e),
      );
      const mock = await startOpenAiMock(script);
      try {
        const config = codexConfig(mock.url, `[mcp_servers.zodex]\ncommand = "node"\nargs = ["${ZODEXD}"]\nrequired = true\n`, { shell_tool: false });
        const run = await codexExec(space.dir, config, 'Run the long command.', { timeoutMs: 240_000 });
        assert.equal(run.code, 0, run.stderr);
        assertThroughHandle(parsed(seen), mark);
      } finally {
        await mock.close();
        space.remove();
      }
    }),

    t.test('Claude Code', async () => {
      const space = scratch('long-claude');
      const mark = marker();
      /** @type {{ at: number, text: string }[]} */ const seen = [];
      const script = pollScript(
        'mcp__zodex__',
        { cmd: `sleep ${SECONDS}; echo ${mark}`, workdir: space.dir, yieldMs: SECONDS * 1000 },
        anthropicToolResults,
        (e) => seen.push(e),
      );
      const mock = await startAnthropicMock('mcp__zodex__exec_command', script);
      try {
        fs.writeFileSync(path.join(space.dir, '.mcp.json'), JSON.stringify({ mcpServers: { zodex: { command: 'node', args: [ZODEXD] } } }));
        const run = await claudePrint('Run the long command.', ['--allowedTools', 'mcp__zodex'], {
          cwd: space.dir,
          env: claudeEnv(space.dir, mock.url),
          timeoutMs: 240_000,
        });
        assert.equal(run.code, 0, run.stderr);
        assertThroughHandle(parsed(seen), mark);
      } finally {
        await mock.close();
        space.remove();
      }
    }),
  ]);
});
