// The write mode as a normal user (conformance's bounds.routes-* run zodexd as root, the user the
// suite runs as): zodexd, its publishers, ssh-agent and git's cache daemon run as `nobody`
// (setpriv), and every route of the credential world (packages/conformance/harness/credentials.ts) is tried
// from exec_command. Commands then confine themselves in a user namespace of their own instead of
// root's mount namespace and capability drop. Root (this test) only serves git over HTTP and ssh.
// zodexd is run from a bind mount of the checkout at a path nobody may traverse to, so that a
// checkout under a 0700 folder (/root) works too.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialWorld, expectedBranches, type CredentialWorld, type WriteModeName } from '../../../packages/conformance/harness/credentials.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NOBODY = { uid: 65534, gid: 65534 };
const asRoot = process.getuid?.() === 0;

let world: CredentialWorld;
let view: string; // where nobody sees the checkout

beforeAll(async () => {
  if (!asRoot) return;
  world = await credentialWorld(NOBODY);
  view = world.checkout;
}, 60_000);

afterAll(async () => {
  await world?.close();
});

interface ExecResult {
  output: string;
  status: string;
  session_handle?: string;
  exit_code?: number;
}

// A zodexd run as nobody, in a mount namespace where the checkout is bound at `view`.
async function connect(mode: WriteModeName): Promise<{ client: Client; stderr: () => string }> {
  const governed = mode !== 'direct';
  const zodexdArgs = [
    '--write-mode',
    mode,
    '--state-dir',
    path.join(world.home, '.local', 'state', 'zodex'),
    ...(governed ? ['--git-read-credentials', world.readCredentials] : []),
  ];
  const script = `mount --bind "$1" "$2" && shift 2 && exec setpriv --reuid=${NOBODY.uid} --regid=${NOBODY.gid} --clear-groups "$@"`;
  const transport = new StdioClientTransport({
    command: 'unshare',
    args: ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', REPO, view, process.execPath, path.join(view, 'dist/cli/zodexd.js'), ...zodexdArgs],
    env: world.env(mode),
    cwd: world.home,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'routes-user', version: '1' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function runScript(client: Client, cmd: string, workdir: string): Promise<string> {
  let result = (await client.callTool({ name: 'exec_command', arguments: { cmd, workdir, yield_time_ms: 30_000 } }, undefined, { timeout: 60_000 }))
    .structuredContent as unknown as ExecResult;
  let output = result.output;
  while (result.status === 'running') {
    result = (
      await client.callTool({ name: 'write_stdin', arguments: { session_handle: result.session_handle, yield_time_ms: 30_000 } }, undefined, {
        timeout: 60_000,
      })
    ).structuredContent as unknown as ExecResult;
    output += result.output;
  }
  return output;
}

// Running commands as another user needs root (CI runs as root); otherwise vitest reports it skipped.
describe.skipIf(!asRoot)('every route, for a command of a normal user', () => {
  it('pushes nothing in read-only, only the pull request in publish-pr, everything in direct', async () => {
    const outputs = new Map<WriteModeName, string>();
    const modes = ['read-only', 'publish-pr', 'direct'] as const;
    await Promise.all(
      modes.map(async (mode) => {
        const { client, stderr } = await connect(mode);
        try {
          outputs.set(mode, await runScript(client, world.routeScript(mode), world.home));
          if (mode !== 'direct') expect(stderr()).toMatch(new RegExp(`write mode: ${mode}: commands run confined`));
        } finally {
          await client.close();
        }
      }),
    );
    const branches = world.branches();
    for (const mode of modes) {
      const output = outputs.get(mode)!;
      expect(output, output).toContain('routes done');
      expect(branches.filter((branch) => branch.startsWith(`${mode}-`)).sort(), `${mode}:\n${output}`).toEqual(expectedBranches(mode).sort());
      if (mode !== 'direct') for (const secret of world.secrets) expect(output, `${mode}: a credential reached the output`).not.toContain(secret);
    }
    expect(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim()).toBe(String(NOBODY.uid));
  }, 180_000);

  it('runs each command in a user namespace of its own, with no capability and no way to its parent', async () => {
    const { client } = await connect('publish-pr');
    try {
      const output = await runScript(
        client,
        [
          'id -u',
          'readlink /proc/self/ns/user',
          "grep -E '^Cap(Eff|Prm)' /proc/self/status",
          'cat /proc/$PPID/environ >/dev/null 2>&1 && echo parent-environ-readable || echo parent-environ-refused',
          'unshare -Urm sh -c "umount $HOME/.ssh 2>/dev/null && echo unmasked || echo still-masked"',
          'for d in /tmp/zodex-bounds-*; do ls -A "$d"; done | wc -l | sed "s/^/private entries: /"',
        ].join('; '),
        world.home,
      );
      const [uid, ns] = output.split('\n');
      expect(uid).toBe(String(NOBODY.uid));
      expect(ns).not.toBe(fs.readlinkSync('/proc/self/ns/user'));
      expect(output).toMatch(/CapPrm:\s+0000000000000000/);
      expect(output).toMatch(/CapEff:\s+0000000000000000/);
      expect(output).toContain('parent-environ-refused');
      expect(output).toContain('still-masked');
      expect(output).toContain('private entries: 0'); // zodexd's zodex-spawn copy is out of reach
    } finally {
      await client.close();
    }
  }, 60_000);
});
