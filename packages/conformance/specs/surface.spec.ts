// The MCP surface of seed 000: tools, instructions, annotations, schemas, result shape.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement } from '../harness/fixtures.js';

requirement('surface.three-tools', async ({ zodex }) => {
  const z = await zodex({ args: ['--mode', 'sprite'] });
  const { tools } = await z.client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(['apply_patch', 'exec_command', 'write_stdin']);
});

requirement('surface.instructions', async ({ zodex }) => {
  const z = await zodex();
  expect(z.client.getInstructions()).toMatch(/^zodex remote execution tools\b/);
});

requirement('surface.list-never-changes', async ({ zodex }) => {
  const z = await zodex();
  // tools and nothing else, and no listChanged: zodex never sends notifications/tools/list_changed
  expect(z.client.getServerCapabilities()).toEqual({ tools: {} });
});

requirement('surface.annotations', async ({ zodex }) => {
  const z = await zodex();
  const { tools } = await z.client.listTools();
  expect(tools.length).toBeGreaterThanOrEqual(3);
  for (const tool of tools) {
    expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  }
});

requirement('surface.descriptions', async ({ zodex }) => {
  const z = await zodex();
  const { tools } = await z.client.listTools();
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.description ?? '']));
  expect(byName.exec_command).toMatch(/^Run a shell command\b/);
  expect(byName.write_stdin).toMatch(/^Write to or poll a running session\b/);
  expect(byName.apply_patch).toMatch(/^Apply a Codex-style patch to files\b/);
});

requirement('surface.required-inputs', async ({ zodex }) => {
  const z = await zodex();
  const { tools } = await z.client.listTools();
  const required = Object.fromEntries(tools.map((tool) => [tool.name, (tool.inputSchema.required ?? []).slice().sort()]));
  expect(required.exec_command).toContain('cmd');
  expect(required.write_stdin).toEqual(['session_handle']);
  expect(required.apply_patch).toEqual(['patch', 'workdir']);
  const properties = (name: string) => Object.keys(tools.find((tool) => tool.name === name)?.inputSchema.properties ?? {});
  expect(properties('exec_command')).toEqual(expect.arrayContaining(['cmd', 'workdir', 'yield_time_ms', 'timeout_ms']));
  expect(properties('write_stdin')).toEqual(expect.arrayContaining(['session_handle', 'chars', 'yield_time_ms', 'kill_process']));
  expect(properties('apply_patch')).toEqual(expect.arrayContaining(['workdir', 'patch']));
});

requirement('surface.input-names', async ({ zodex }) => {
  const z = await zodex();
  const { tools } = await z.client.listTools();
  const exec = tools.find((tool) => tool.name === 'exec_command')!;
  expect(Object.keys(exec.inputSchema.properties ?? {}).sort()).toEqual(['cmd', 'timeout_ms', 'workdir', 'yield_time_ms']);
});

requirement('surface.structured-results', async ({ zodex }) => {
  const z = await zodex();
  const { tools } = await z.client.listTools();
  for (const name of ['exec_command', 'write_stdin']) {
    const tool = tools.find((candidate) => candidate.name === name)!;
    expect(tool.outputSchema?.type, name).toBe('object');
    expect(Object.keys(tool.outputSchema?.properties ?? {})).toEqual(
      expect.arrayContaining(['summary', 'output', 'status', 'cwd', 'session_handle', 'exit_code', 'termination_reason']),
    );
  }
  // execResult() checks that the first text block is the same JSON as structuredContent.
  const result = await z.exec({ cmd: 'echo structured', workdir: z.root });
  expect(result.output).toBe('structured\n');
});

requirement('surface.no-control-plane', async ({ zodex }) => {
  const z = await zodex();
  const { tools } = await z.client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of names) expect(name).not.toMatch(/publish|pull|pr$|github|history|config|tunnel|stop|start|server|admin|permission/i);
  expect(names.filter((name) => !['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias'].includes(name))).toEqual([]);
});

requirement('surface.annotations-truthful', async ({ zodex }) => {
  const annotationsOf = async (args: string[]) => {
    const z = await zodex({ args });
    const { tools } = await z.client.listTools();
    return Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
  };
  const truthful = await annotationsOf(['--annotations', 'truthful']);
  for (const name of ['exec_command', 'write_stdin', 'apply_patch']) {
    expect(truthful[name], name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  }
  expect(truthful.set_agent_alias).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  const allReadOnly = await annotationsOf(['--annotations', 'all-read-only']);
  expect(allReadOnly).toEqual(await annotationsOf([]));
  for (const name of ['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias']) {
    expect(allReadOnly[name], name).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  }
  // seed, the old name of all-read-only (users' configs carry it), still works, with a notice
  const old = await zodex({ args: ['--annotations', 'seed'] });
  expect(Object.fromEntries((await old.client.listTools()).tools.map((tool) => [tool.name, tool.annotations]))).toEqual(allReadOnly);
  if (old.managedServer) expect(old.managedServer.stderr()).toContain('--annotations seed is now called --annotations all-read-only');
});

requirement('surface.instructions-start-dir', async ({ zodex }) => {
  // Codex shows the model only the first 512 characters of the instructions.
  const startDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-start-')));
  const local = (await zodex({ cwd: startDir })).client.getInstructions() ?? '';
  expect(local).toMatch(/^zodex remote execution tools\b/);
  const essentials = local.slice(0, 512);
  expect(essentials).toContain(`First workdir: ${startDir} (where zodexd was started; guidance, not a boundary)`);
  expect(essentials).toContain('set_agent_alias');
  const sprite = (await zodex({ cwd: startDir, args: ['--mode', 'sprite'] })).client.getInstructions() ?? '';
  expect(sprite).toMatch(/^zodex remote execution tools\b/);
  expect(sprite).not.toContain(startDir);
  expect(sprite).not.toContain('set_agent_alias');
  // a long start directory cannot push the set_agent_alias nudge out of the first 512 characters
  const deep = path.join(startDir, 'a-rather-long-folder-name-for-a-project'.repeat(4), 'and-one-more-level');
  fs.mkdirSync(deep, { recursive: true });
  const longer = ((await zodex({ cwd: deep })).client.getInstructions() ?? '').slice(0, 512);
  expect(longer).toContain('set_agent_alias');
  expect(longer).toContain('First workdir: /');
  // --default-workdir: exec_command may omit workdir, and nothing says otherwise
  const withDefault = ((await zodex({ cwd: startDir, args: ['--default-workdir', startDir] })).client.getInstructions() ?? '').slice(0, 512);
  expect(withDefault).toContain(`Default workdir of exec_command: ${startDir}.`);
  expect(withDefault).toContain('omit it for the default');
  expect(withDefault).not.toMatch(/exec_command[^.;]*always pass/);
  expect(withDefault).toContain('set_agent_alias');
  fs.rmSync(startDir, { recursive: true, force: true });
});
