// Tool inputs that cannot be honoured exactly (issue 12): each gets an isError "CODE: message"
// result naming the field, and nothing runs or is written; error texts stay small whatever the
// input's size.

import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, requirement } from '../harness/fixtures.js';
import { textOf, type Zodex } from '../harness/zodex.js';

async function refused(z: Zodex, name: string, args: Record<string, unknown>, code: string): Promise<string> {
  const result = await z.call(name, args);
  expect(result.isError, `${name} should be refused with ${code}`).toBe(true);
  const text = textOf(result);
  expect(text.startsWith(`${code}: `), text.slice(0, 300)).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return text;
}

const addFile = (file: string, line = 'x') => `*** Begin Patch\n*** Add File: ${file}\n+${line}\n*** End Patch\n`;

requirement('inputs.bounded-quotes', async ({ zodex }) => {
  const z = await zodex();
  const handle = 'h'.repeat(1_000_000);
  const unknown = await refused(z, 'write_stdin', { session_handle: handle }, 'UNKNOWN_SESSION');
  expect(unknown.length).toBeLessThan(1_024);
  expect(unknown).toContain('… and 999,800 more characters');
  const workdir = `/${'w'.repeat(4_000_000)}`;
  const missing = await refused(z, 'exec_command', { cmd: 'true', workdir }, 'WORKDIR_NOT_FOUND');
  expect(missing.length).toBeLessThan(1_024);
  expect(missing).toContain('… and 3,999,801 more characters');
  const relative = await refused(z, 'apply_patch', { workdir: workdir.slice(1), patch: addFile('a') }, 'WORKDIR_NOT_ABSOLUTE');
  expect(relative.length).toBeLessThan(1_024);
  // a patch line of 1 MB in a parse error is quoted the same way
  const parse = await refused(
    z,
    'apply_patch',
    { workdir: z.root, patch: `*** Begin Patch\n*** Frobnicate ${'p'.repeat(1_000_000)}\n*** End Patch\n` },
    'PATCH_PARSE',
  );
  expect(parse.length).toBeLessThan(1_024);
  expect(parse).toMatch(/… and [\d,]+ more characters/);
});

requirement('inputs.unknown-argument', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const text = await refused(z, 'exec_command', { cmd: `touch '${dir}/ran'`, workdir: dir, timeout: 1 }, 'UNKNOWN_ARGUMENT');
  expect(text).toContain('`timeout`');
  expect(text).toContain('did you mean `timeout_ms`?');
  const stdin = await refused(z, 'write_stdin', { session_handle: 'x', kill: true }, 'UNKNOWN_ARGUMENT');
  expect(stdin).toContain('did you mean `kill_process`?');
  await refused(z, 'apply_patch', { workdir: dir, patch: addFile(`${dir}/patched`), dry_run: true }, 'UNKNOWN_ARGUMENT');
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
  const { tools } = await z.client.listTools();
  for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
});

requirement('inputs.nul', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const text = await refused(z, 'exec_command', { cmd: 'echo A\u0000; touch X', workdir: dir }, 'NUL_CHARACTER');
  expect(text).toMatch(/`cmd`.*index 6/);
  await refused(z, 'exec_command', { cmd: 'echo A\u0000\u0000INJ=x', workdir: dir }, 'NUL_CHARACTER');
  const workdir = await refused(z, 'exec_command', { cmd: 'touch X', workdir: `${dir}\u0000/sub` }, 'NUL_CHARACTER');
  expect(workdir).toContain('`workdir`');
  await refused(z, 'apply_patch', { workdir: `${dir}\u0000`, patch: addFile('X') }, 'NUL_CHARACTER');
  await refused(z, 'apply_patch', { workdir: dir, patch: addFile('X\u0000Y') }, 'PATCH_PARSE');
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
});

requirement('inputs.surrogate-cmd', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const text = await refused(z, 'exec_command', { cmd: `touch '${dir}/X'; echo \ud83d`, workdir: dir }, 'INVALID_UNICODE');
  expect(text).toContain('`cmd`');
  expect(text).toContain(`index ${dir.length + 17}`);
  await refused(z, 'exec_command', { cmd: `touch '${dir}/Y'`, workdir: `${dir}\udc00` }, 'INVALID_UNICODE');
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
  // a well-formed pair is fine
  expect((await z.exec({ cmd: 'echo \ud83d\ude00', workdir: dir })).output).toBe('\ud83d\ude00\n');
});

requirement('inputs.surrogate-chars', async ({ zodex }) => {
  const z = await zodex();
  const running = await z.exec({ cmd: 'read line; echo "got [$line]"', workdir: z.root, yield_time_ms: 300 });
  expect(running.status).toBe('running');
  const text = await refused(z, 'write_stdin', { session_handle: running.session_handle!, chars: 'ab\udfffc\n' }, 'INVALID_UNICODE');
  expect(text).toMatch(/`chars`.*index 2/);
  const answer = await z.write({ session_handle: running.session_handle!, chars: 'clean\n', yield_time_ms: 5_000 });
  expect(answer.output).toContain('got [clean]');
});

requirement('inputs.surrogate-patch', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.writeFile(`${dir}/keep.txt`, 'old\n');
  const patch = `*** Begin Patch\n*** Add File: new.txt\n+fine\n*** Update File: keep.txt\n@@\n-old\n+bad \ud800 line\n*** End Patch\n`;
  const text = await refused(z, 'apply_patch', { workdir: dir, patch }, 'INVALID_UNICODE');
  expect(text).toContain('`patch`');
  expect(await z.sh(`ls -A '${dir}'`)).toBe('keep.txt\n');
  expect((await z.readFile(`${dir}/keep.txt`))?.toString()).toBe('old\n');
});

requirement('inputs.coded-errors', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['exec_command', { workdir: dir }, 'MISSING_ARGUMENT', '`cmd`'],
    ['exec_command', { cmd: 5, workdir: dir }, 'INVALID_TYPE', '`cmd`'],
    ['exec_command', { cmd: '', workdir: dir }, 'INVALID_VALUE', '`cmd`'],
    ['exec_command', { cmd: 'true', workdir: dir, timeout_ms: -1 }, 'INVALID_VALUE', '`timeout_ms`'],
    ['exec_command', { cmd: 'true', workdir: dir, yield_time_ms: '10' }, 'INVALID_TYPE', '`yield_time_ms`'],
    ['exec_command', { cmd: 'true', workdir: 7 }, 'INVALID_TYPE', '`workdir`'],
    ['write_stdin', {}, 'MISSING_ARGUMENT', '`session_handle`'],
    ['write_stdin', { session_handle: 'x', kill_process: 'yes' }, 'INVALID_TYPE', '`kill_process`'],
    ['apply_patch', { workdir: dir }, 'MISSING_ARGUMENT', '`patch`'],
    ['apply_patch', { workdir: dir, patch: null }, 'INVALID_TYPE', '`patch`'],
  ];
  for (const [name, args, code, field] of cases) {
    const text = await refused(z, name, args, code);
    expect(text, `${name} ${JSON.stringify(args)}`).toContain(field);
    expect(text).not.toContain('Input validation error');
  }
  // one text for a missing workdir, whether the schema or the workdir rule finds it
  const bySchema = await refused(z, 'exec_command', { cmd: 'true' }, 'WORKDIR_REQUIRED');
  const byRule = await refused(z, 'exec_command', { cmd: 'true', workdir: '' }, 'WORKDIR_REQUIRED');
  expect(bySchema).toBe(byRule);
  // arguments that are not an object break the request itself: JSON-RPC -32602
  for (const args of ['cmd=ls', ['ls'], null]) {
    const call = z.client.request({ method: 'tools/call', params: { name: 'exec_command', arguments: args as never } }, CallToolResultSchema);
    await expect(call).rejects.toMatchObject({ code: -32602 });
  }
  if (z.target.protocol === 'modern') {
    // 2026-07-28 makes an unknown tool a protocol error (tools.mdx), with the same text
    await expect(z.call('no_such_tool', {})).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/UNKNOWN_TOOL: /) });
  } else {
    const unknown: CallToolResult = await z.call('no_such_tool', {});
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/^UNKNOWN_TOOL: /);
  }
  // and the server keeps serving
  expect((await z.exec({ cmd: 'echo still here', workdir: dir })).output).toBe('still here\n');
});
