// Local mode (seed 002, issue 7): Agent IDs, set_agent_alias, the history store, zodex_context.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, requirement } from '../harness/fixtures.js';
import { REPO_ROOT, connectHttp } from '../harness/target.js';
import { structuredOf, textOf, type Zodex } from '../harness/zodex.js';

const run = promisify(execFile);
const ZODEX_CLI = path.join(REPO_ROOT, 'dist/cli/zodex.js');

interface HistoryRow {
  tool: string;
  agentAlias: string;
  agentId: string;
  workdir: string | null;
  summary: string;
  startedAt: string;
  endedAt: string | null;
  resultSummary: string | null;
  isError: boolean;
  exitCode: number | null;
  terminationReason: string | null;
  sessionId: string | null;
  outputFile: string | null;
}

function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

async function zodexCli<T>(args: string[], stateDir: string): Promise<T> {
  const { stdout } = await run(process.execPath, [ZODEX_CLI, ...args, '--json', '--state-dir', stateDir]);
  return JSON.parse(stdout) as T;
}

async function alias(z: Zodex, value: string) {
  return z.call('set_agent_alias', { alias: value });
}

// A Codex home with global instructions and a skill, and a workdir with its own.
function contextFixture(): { codexHome: string; workdir: string; cleanup: () => void } {
  const root = tempDir('zodex-context-');
  const codexHome = path.join(root, 'codex');
  const workdir = path.join(root, 'project');
  fs.mkdirSync(path.join(codexHome, 'skills', 'deploy'), { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'AGENTS.md'), 'GLOBAL-RULE: always run the tests.\n');
  fs.writeFileSync(path.join(codexHome, 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Ship the app to staging\n---\nSteps.\n');
  fs.mkdirSync(path.join(workdir, '.agents', 'skills', 'lint'), { recursive: true });
  fs.writeFileSync(path.join(workdir, 'AGENTS.md'), 'project rules\n');
  fs.writeFileSync(path.join(workdir, '.agents', 'skills', 'lint', 'SKILL.md'), '---\nname: lint\ndescription: Run the linter\n---\n');
  return { codexHome, workdir, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

requirement('agent.ids', async ({ zodex }) => {
  const z = await zodex();
  const first = structuredOf<{ agent_id: string }>(await alias(z, 'first conversation'));
  const again = structuredOf<{ agent_id: string }>(await alias(z, 'still the first'));
  expect(first.agent_id).toMatch(/^[a-z0-9]{4}$/);
  expect(again.agent_id).toBe(first.agent_id);
  const other = await connectHttp(z.endpoint.url, z.endpoint.headers);
  try {
    const second = structuredOf<{ agent_id: string }>(await other.client.callTool({ name: 'set_agent_alias', arguments: { alias: 'second' } }));
    expect(second.agent_id).toMatch(/^[a-z0-9]{4}$/);
    expect(second.agent_id).not.toBe(first.agent_id);
  } finally {
    await other.client.close();
  }
});

requirement('agent.meta-2025', async ({ zodex }) => {
  // One MCP session, calls naming different conversations in _meta (as ChatGPT's openai/session,
  // Codex's threadId): each conversation is its own agent; a call naming none is the session's.
  const z = await zodex();
  const as = async (meta: Record<string, unknown> | undefined, label: string) =>
    structuredOf<{ agent_id: string }>(await z.client.callTool({ name: 'set_agent_alias', arguments: { alias: label }, ...(meta ? { _meta: meta } : {}) }))
      .agent_id;
  const conv1 = await as({ 'openai/session': 'conv-1' }, 'first');
  const conv2 = await as({ 'openai/session': 'conv-2' }, 'second');
  const thread = await as({ threadId: 'thread-9' }, 'third');
  const session = await as(undefined, 'the session itself');
  expect(new Set([conv1, conv2, thread, session]).size).toBe(4);
  expect(await as({ 'openai/session': 'conv-1' }, 'first again')).toBe(conv1);
  // the command of a call runs as its agent (ZODEX_AGENT_ID) and still belongs to the session
  const ran = await z.client.callTool({
    name: 'exec_command',
    arguments: { cmd: 'echo "agent=$ZODEX_AGENT_ID"', workdir: '/' },
    _meta: { threadId: 'thread-9' },
  });
  expect(structuredOf<{ output: string }>(ran).output).toContain(`agent=${thread}`);
  // another session naming the same conversation is the same agent (HTTP: a second session)
  if (z.target.name === 'stdio' || z.target.name === 'remote-stdio') return;
  const other = await connectHttp(z.endpoint.url, z.endpoint.headers);
  try {
    const again = structuredOf<{ agent_id: string }>(
      await other.client.callTool({ name: 'set_agent_alias', arguments: { alias: 'elsewhere' }, _meta: { 'openai/session': 'conv-2' } }),
    );
    expect(again.agent_id).toBe(conv2);
  } finally {
    await other.client.close();
  }
});

requirement('alias.local-only', async ({ zodex }) => {
  const local = await zodex({ args: ['--mode', 'local'] });
  expect((await local.client.listTools()).tools.map((tool) => tool.name)).toContain('set_agent_alias');
  const sprite = await zodex({ args: ['--mode', 'sprite'] });
  expect((await sprite.client.listTools()).tools.map((tool) => tool.name)).not.toContain('set_agent_alias');
  // an unknown tool: an isError result in 2025-11-25, a -32602 protocol error in 2026-07-28
  if (sprite.target.protocol === 'modern') await expect(sprite.call('set_agent_alias', { alias: 'x' })).rejects.toMatchObject({ code: -32602 });
  else expect((await sprite.call('set_agent_alias', { alias: 'x' })).isError).toBe(true);
});

requirement('alias.limits', async ({ zodex }) => {
  const z = await zodex();
  const eighty = 'é'.repeat(40) + 'x'.repeat(40);
  const accepted = await alias(z, eighty);
  expect(accepted.isError).toBeFalsy();
  expect(structuredOf<{ alias: string }>(accepted).alias).toBe(eighty);
  const refused = await alias(z, 'y'.repeat(81));
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toMatch(/80 characters/);
  expect(structuredOf<{ alias: string }>(await alias(z, eighty)).alias).toBe(eighty); // unchanged by the refusal
  const cleared = await alias(z, '');
  expect(cleared.isError).toBeFalsy();
  expect(structuredOf<{ alias: string }>(cleared).alias).toBe('');
});

requirement('alias.first-call', async ({ zodex }) => {
  const stateDir = tempDir('zodex-state-');
  try {
    const z = await zodex({ args: ['--state-dir', stateDir] });
    const named = structuredOf<{ agent_id: string }>(await alias(z, 'Rindle implementation'));
    const agents = await zodexCli<{ agentId: string; alias: string }[]>(['agents'], stateDir);
    expect(agents).toEqual([expect.objectContaining({ agentId: named.agent_id, alias: 'Rindle implementation' })]);
    expect(await zodexCli<HistoryRow[]>(['history'], stateDir)).toEqual([]);
    await z.exec({ cmd: 'true', workdir: '/' });
    const history = await zodexCli<HistoryRow[]>(['history'], stateDir);
    expect(history.map((row) => [row.agentId, row.tool])).toEqual([[named.agent_id, 'exec_command']]);
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

requirement('alias.persistent-lww', async ({ zodex }) => {
  const stateDir = tempDir('zodex-state-');
  try {
    const z = await zodex({ args: ['--state-dir', stateDir] });
    const { agent_id: agentId } = structuredOf<{ agent_id: string }>(await alias(z, 'first name'));
    await alias(z, 'second name');
    await alias(z, 'final name');
    await z.close();
    const agents = await zodexCli<{ agentId: string; alias: string }[]>(['agents'], stateDir);
    expect(agents.find((agent) => agent.agentId === agentId)?.alias).toBe('final name');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

requirement('alias.no-effect', async ({ zodex }) => {
  const stateDir = tempDir('zodex-state-');
  try {
    const z = await zodex({ args: ['--state-dir', stateDir] });
    const running = await z.exec({ cmd: 'read line; echo "got $line"', workdir: '/', yield_time_ms: 300 });
    const before = await zodexCli<HistoryRow[]>(['history'], stateDir);
    await alias(z, 'renamed mid-task');
    // rows show the current alias for display; the records themselves are unchanged
    const withoutAlias = (rows: HistoryRow[]) => rows.map(({ agentAlias, ...row }) => (void agentAlias, row));
    expect(withoutAlias(await zodexCli<HistoryRow[]>(['history'], stateDir))).toEqual(withoutAlias(before));
    const answer = await z.write({ session_handle: running.session_handle!, chars: 'still mine\n', yield_time_ms: 5_000 });
    expect(answer.output).toContain('got still mine');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

requirement('history.records', async ({ zodex }) => {
  const stateDir = tempDir('zodex-state-');
  const workdir = tempDir('zodex-work-');
  try {
    const z = await zodex({ args: ['--state-dir', stateDir] });
    await z.exec({ cmd: 'echo SECRET-OUTPUT; exit 3', workdir });
    const running = await z.exec({ cmd: 'sleep 30', workdir, yield_time_ms: 100 });
    await z.write({ session_handle: running.session_handle!, chars: 'typed-secret\n', yield_time_ms: 10 });
    await z.write({ session_handle: running.session_handle!, kill_process: true });
    await z.exec({ cmd: 'sleep 5', workdir, timeout_ms: 200 });
    const big = await z.exec({ cmd: 'seq 1 100000', workdir });
    await z.patch(workdir, '*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n');
    await z.call('exec_command', { cmd: 'true', workdir: 'relative' });
    const rows = await zodexCli<HistoryRow[]>(['history'], stateDir);
    expect(rows.map((row) => [row.tool, row.summary, row.exitCode, row.terminationReason, row.isError])).toEqual([
      ['exec_command', 'echo SECRET-OUTPUT; exit 3', 3, 'exit', false],
      ['exec_command', 'sleep 30', null, null, false],
      ['write_stdin', 'input (13 characters)', null, null, false],
      ['write_stdin', 'kill', 137, 'killed', false],
      ['exec_command', 'sleep 5', 137, 'timeout', false],
      ['exec_command', 'seq 1 100000', 0, 'exit', false],
      ['apply_patch', 'A notes.txt', null, null, false],
      ['exec_command', 'true', null, null, true],
    ]);
    const agentIds = new Set(rows.map((row) => row.agentId));
    expect(agentIds.size).toBe(1);
    for (const row of rows.slice(0, 7)) {
      expect(row.workdir).toBe(workdir);
      expect(Date.parse(row.endedAt!)).toBeGreaterThanOrEqual(Date.parse(row.startedAt));
      expect(row.resultSummary).toBeTruthy();
    }
    // the same opaque session id on the calls that touched one session, never the handle
    expect(rows[1]!.sessionId).toMatch(/^s[0-9a-f]+$/);
    expect(rows[2]!.sessionId).toBe(rows[1]!.sessionId);
    expect(rows[3]!.sessionId).toBe(rows[1]!.sessionId);
    expect(rows[5]!.outputFile).toBe(big.output_file!);
    const dump = fs
      .readdirSync(stateDir, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => fs.readFileSync(path.join(stateDir, entry.name)).toString('latin1'))
      .join('');
    expect(dump).not.toContain(running.session_handle!);
    expect(dump).not.toContain('SECRET-OUTPUT\n');
    expect(dump).not.toContain('typed-secret');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
    fs.rmSync(workdir, { recursive: true, force: true });
  }
});

requirement('history.rejected', async ({ zodex }) => {
  const stateDir = tempDir('zodex-state-');
  try {
    const z = await zodex({ args: ['--state-dir', stateDir] });
    await z.call('exec_command', { cmd: 'echo never' });
    await z.call('exec_command', { cmd: 'echo never', workdir: '/', timeout: 1 });
    // an alias change never reaches the timeline (seed 002), not even a refused one
    expect((await alias(z, 'a'.repeat(81))).isError).toBe(true);
    await z.call('apply_patch', { workdir: '/', patch: 'bad \ud800' });
    await z.call('write_stdin', { session_handle: 'zs_none', chars: 'typed-secret\ud800' });
    // an unknown tool: an isError result in 2025-11-25, a -32602 protocol error in 2026-07-28; recorded in both
    if (z.target.protocol === 'modern') await expect(z.call('run_shell', { cmd: 'ls', workdir: '/tmp' })).rejects.toMatchObject({ code: -32602 });
    else expect((await z.call('run_shell', { cmd: 'ls', workdir: '/tmp' })).isError).toBe(true);
    const rows = await zodexCli<HistoryRow[]>(['history'], stateDir);
    expect(rows.map((row) => [row.tool, row.summary, row.isError, row.resultSummary?.split(':')[0]])).toEqual([
      ['exec_command', 'echo never', true, 'WORKDIR_REQUIRED'],
      ['exec_command', 'echo never', true, 'UNKNOWN_ARGUMENT'],
      ['apply_patch', 'patch without file operations', true, 'INVALID_UNICODE'],
      ['write_stdin', 'input (13 characters)', true, 'INVALID_UNICODE'],
      ['run_shell', 'unknown tool', true, 'UNKNOWN_TOOL'],
    ]);
    expect(rows[4]!.workdir).toBe('/tmp');
    expect(rows[1]!.workdir).toBe('/');
    expect(JSON.stringify(rows)).not.toContain('typed-secret');
    for (const row of rows) expect(row.endedAt).toBeTruthy();
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

requirement('context.first-result', async ({ zodex }) => {
  const fixture = contextFixture();
  try {
    const z = await zodex({ args: ['--codex-home', fixture.codexHome, '--workdir-context', 'off'] });
    const first = await z.exec({ cmd: 'echo one', workdir: '/' });
    expect(first.zodex_context).toContain('GLOBAL-RULE: always run the tests.');
    expect(first.zodex_context).toMatch(/deploy: Ship the app to staging/);
    const second = await z.exec({ cmd: 'echo two', workdir: '/' });
    expect(second.zodex_context).toBeUndefined();
    // a new conversation gets it again on its first result, even when that result is an error
    const other = await zodex({ args: ['--codex-home', fixture.codexHome] });
    const failed = await other.call('exec_command', { cmd: 'true', workdir: 'not/absolute' });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toMatch(/^WORKDIR_NOT_ABSOLUTE: [\s\S]*\n\nGlobal instructions[\s\S]*GLOBAL-RULE/);
  } finally {
    fixture.cleanup();
  }
});

requirement('context.workdir', async ({ zodex }) => {
  const fixture = contextFixture();
  try {
    const z = await zodex({ args: ['--codex-home', path.join(fixture.workdir, 'nowhere'), '--global-context', 'off'] });
    expect((await z.call('exec_command', { cmd: 'true', workdir: path.join(fixture.workdir, 'missing') })).isError).toBe(true);
    const first = await z.exec({ cmd: 'true', workdir: fixture.workdir });
    expect(first.zodex_context).toMatch(new RegExp(`${fixture.workdir} has AGENTS\\.md`));
    expect(first.zodex_context).toMatch(/lint: Run the linter/);
    expect((await z.exec({ cmd: 'true', workdir: fixture.workdir })).zodex_context).toBeUndefined();
    expect((await z.exec({ cmd: 'true', workdir: '/' })).zodex_context).toBeUndefined(); // nothing there to say
  } finally {
    fixture.cleanup();
  }
});

requirement('context.result-unchanged', async ({ zodex }) => {
  const fixture = contextFixture();
  try {
    const withContext = await zodex({ args: ['--codex-home', fixture.codexHome] });
    const without = await zodex({ args: ['--codex-home', fixture.codexHome, '--global-context', 'off', '--workdir-context', 'off'] });
    const cmd = 'echo same; exit 4';
    const a = await withContext.exec({ cmd, workdir: fixture.workdir });
    const b = await without.exec({ cmd, workdir: fixture.workdir });
    expect(a.zodex_context).toBeDefined();
    expect(b.zodex_context).toBeUndefined();
    const strip = ({ summary, zodex_context, ...rest }: typeof a) => (void summary, void zodex_context, rest);
    expect(strip(a)).toEqual(strip(b));
    // execResult() also checked that the text block is the JSON of the result with the context after it
  } finally {
    fixture.cleanup();
  }
});

requirement('context.switches', async ({ zodex }) => {
  const fixture = contextFixture();
  const configDir = tempDir('zodex-config-');
  try {
    const off = await zodex({ args: ['--codex-home', fixture.codexHome, '--global-context', 'off', '--workdir-context', 'off'] });
    expect((await off.exec({ cmd: 'true', workdir: fixture.workdir })).zodex_context).toBeUndefined();
    const configFile = path.join(configDir, 'config.json');
    fs.writeFileSync(configFile, JSON.stringify({ context: { globalSkills: false, workdirSkills: false } }));
    const partial = await zodex({ args: ['--codex-home', fixture.codexHome, '--config', configFile] });
    const result = await partial.exec({ cmd: 'true', workdir: fixture.workdir });
    expect(result.zodex_context).toContain('GLOBAL-RULE');
    expect(result.zodex_context).toContain('has AGENTS.md');
    expect(result.zodex_context).not.toMatch(/deploy|lint/);
    fs.writeFileSync(configFile, JSON.stringify({ context: { global: 'yes' } }));
    const { runZodexd } = await import('../harness/process.js');
    const refused = await runZodexd(['--config', configFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/context\.global/);
  } finally {
    fixture.cleanup();
    fs.rmSync(configDir, { recursive: true, force: true });
  }
});
