// The sandbox (Sprite mode, issue 6): zodexd in a container, driven from outside over HTTP with
// a token. The rest of the suite runs against it as the `sandbox` target; this file proves the
// commands and patches act inside the container, not on the host.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { expect, requirement } from '../harness/fixtures.js';
import { initialize } from '../harness/raw-http.js';

function sandboxContainer(): string {
  const id = process.env.ZODEX_SANDBOX_CONTAINER;
  if (!id) throw new Error('ZODEX_SANDBOX_CONTAINER is not set: the global setup starts the sandbox');
  return id;
}

requirement('sandbox.isolated', async ({ zodex }) => {
  const z = await zodex();
  const container = sandboxContainer();
  const where = await z.exec({ cmd: 'hostname; id -u; pwd', workdir: '/workspace' });
  const [hostname, uid, cwd] = where.output.trim().split('\n');
  expect(container.startsWith(hostname!)).toBe(true);
  expect(hostname).not.toBe(os.hostname());
  expect(uid).toBe('10001');
  expect(cwd).toBe('/workspace');
  const name = `isolation-${randomBytes(6).toString('hex')}.txt`;
  const patched = await z.patch('/workspace', `*** Begin Patch\n*** Add File: ${name}\n+written by apply_patch\n*** End Patch\n`);
  expect(patched.isError).toBeFalsy();
  await z.exec({ cmd: `echo "written by exec_command" >> ${name}`, workdir: '/workspace' });
  // inside the container: both writes; on the host: nothing at that path
  const inside = execFileSync('docker', ['exec', container, 'cat', `/workspace/${name}`], { encoding: 'utf8' });
  expect(inside).toBe('written by apply_patch\nwritten by exec_command\n');
  expect(fs.existsSync(`/workspace/${name}`)).toBe(false);
  await z.exec({ cmd: `rm ${name}`, workdir: '/workspace' });
});

requirement('sandbox.token', async ({ zodex }) => {
  const z = await zodex();
  const { url } = z.endpoint;
  expect((await initialize(url)).status).toBe(401);
  expect((await initialize(url, { authorization: 'Bearer not-the-token-at-all' })).status).toBe(401);
  expect((await initialize(url, z.endpoint.headers)).status).toBe(200);
});
