// Seed 002's workdir rules, for exec_command and apply_patch, each with proof of no side effect.

import { expect, requirement } from '../harness/fixtures.js';
import { textOf, type Zodex } from '../harness/zodex.js';

const addFile = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+created\n*** End Patch\n`;

// A call that must fail: an isError result (its text is the implementation's own).
async function expectRefused(z: Zodex, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await z.call(name, args);
  expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 200)} should fail: ${textOf(result).slice(0, 300)}`).toBe(true);
  return textOf(result);
}

// The same failure, with zodex's code for the rule it broke.
async function expectError(z: Zodex, name: string, args: Record<string, unknown>, code: string): Promise<string> {
  const text = await expectRefused(z, name, args);
  expect(text).toContain(code);
  return text;
}

requirement('workdir.required', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await expectRefused(z, 'apply_patch', { patch: addFile(`${dir}/patched`) });
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
  // Seed 000 lets a server default it; then the result says where the command ran.
  const exec = await z.call('exec_command', { cmd: 'pwd -P' });
  if (!exec.isError) {
    const { cwd, output } = exec.structuredContent as { cwd: string; output: string };
    expect(cwd, 'a command run without workdir reports where it ran').toMatch(/^\//);
    expect(output.trim()).toBe((await z.sh(`cd '${cwd}' && pwd -P`)).trim());
  }
});

requirement('workdir.absolute', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await expectRefused(z, 'exec_command', { cmd: `touch '${dir}/ran'`, workdir: 'relative/dir' });
  await expectRefused(z, 'apply_patch', { workdir: '.', patch: addFile(`${dir}/patched`) });
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
});

requirement('workdir.exists', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await expectRefused(z, 'exec_command', { cmd: `touch '${dir}/ran'`, workdir: `${dir}/missing` });
  await expectRefused(z, 'apply_patch', { workdir: `${dir}/missing`, patch: addFile('patched') });
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
});

requirement('workdir.directory', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.sh(`echo x > '${dir}/file'`);
  await expectRefused(z, 'exec_command', { cmd: `touch '${dir}/ran'`, workdir: `${dir}/file` });
  await expectRefused(z, 'apply_patch', { workdir: `${dir}/file`, patch: addFile(`${dir}/patched`) });
  expect(await z.sh(`ls -A '${dir}'`)).toBe('file\n');
});

requirement('surface.workdir-codes', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  await z.sh(`echo x > '${dir}/file'`);
  await expectError(z, 'apply_patch', { patch: addFile(`${dir}/patched`) }, 'WORKDIR_REQUIRED');
  const text = await expectError(z, 'exec_command', { cmd: 'true', workdir: 'relative/dir' }, 'WORKDIR_NOT_ABSOLUTE');
  expect(text).toContain('relative/dir');
  await expectError(z, 'apply_patch', { workdir: '.', patch: addFile('patched') }, 'WORKDIR_NOT_ABSOLUTE');
  for (const name of ['exec_command', 'apply_patch']) {
    const args = name === 'exec_command' ? { cmd: 'true' } : { patch: addFile('patched') };
    await expectError(z, name, { ...args, workdir: `${dir}/missing` }, 'WORKDIR_NOT_FOUND');
    await expectError(z, name, { ...args, workdir: `${dir}/file` }, 'WORKDIR_NOT_A_DIRECTORY');
  }
  expect(await z.sh(`ls -A '${dir}'`)).toBe('file\n');
});

// zodexd without --default-workdir: exec_command without workdir is WORKDIR_REQUIRED too.
requirement('workdir.required-exec', async ({ zodex }) => {
  const z = await zodex({ args: [] });
  const dir = await z.scratch();
  await expectError(z, 'exec_command', { cmd: `touch '${dir}/ran'` }, 'WORKDIR_REQUIRED');
  expect(await z.sh(`ls -A '${dir}'`)).toBe('');
});

requirement('workdir.no-side-effect', async ({ zodex }) => {
  const z = await zodex();
  const dir = await z.scratch();
  const token = `zodex-never-${Date.now()}`;
  await z.sh(`echo x > '${dir}/file'`);
  for (const workdir of [undefined, 'rel', `${dir}/nope`, `${dir}/file`]) {
    // exec_command without workdir may run in a server's default (seed 000): workdir.required
    if (workdir !== undefined) {
      const result = await z.call('exec_command', { cmd: `touch '${dir}/ran'; exec -a ${token} sleep 30`, workdir });
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.session_handle).toBeUndefined();
    }
    const patchArgs: Record<string, unknown> = { patch: addFile(`${dir}/patched`) };
    if (workdir !== undefined) patchArgs.workdir = workdir;
    expect((await z.call('apply_patch', patchArgs)).isError).toBe(true);
  }
  expect(await z.sh(`ls -A '${dir}'`)).toBe('file\n');
  // nothing was started either: no `sleep 30` of ours is running
  // "[z]" keeps pgrep from matching the shell that runs it
  expect(await z.sh(`pgrep -f "[z]${token.slice(1)}" >/dev/null && echo running || echo none`)).toBe('none\n');
});

requirement('workdir.default', async ({ zodex }) => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-default-')));
  try {
    const z = await zodex({ args: ['--default-workdir', dir] });
    const result = await z.exec({ cmd: 'pwd' });
    expect(result.cwd).toBe(dir);
    expect(result.output).toBe(`${dir}\n`);
    await expectError(z, 'apply_patch', { patch: addFile('x') }, 'WORKDIR_REQUIRED');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
