// The bounds an operator sets (issue 26), as a client sees them: the write mode enforced against a
// same-user command by every route a real credential store opens (harness/credentials.ts), the
// opt-in sandbox for commands and apply_patch, the network switch, and a zodexd that refuses to
// start rather than run commands less confined than asked.

import { execFileSync, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { credentialWorld, expectedBranches, type WriteModeName } from '../harness/credentials.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { ZODEXD } from '../harness/target.js';
import { textOf, type Zodex } from '../harness/zodex.js';

const owner = () => ({ uid: process.getuid!(), gid: process.getgid!() });

// Every route, from one exec_command per write mode, the three modes at once.
async function tryRoutes(zodex: (options?: { args?: string[]; env?: Record<string, string> }) => Promise<Zodex>, modes: WriteModeName[]) {
  const world = await credentialWorld(owner());
  try {
    const outputs = new Map<WriteModeName, string>();
    await Promise.all(
      modes.map(async (mode) => {
        const governed = mode !== 'direct';
        const z = await zodex({ args: ['--write-mode', mode, ...(governed ? ['--git-read-credentials', world.readCredentials] : [])], env: world.env(mode) });
        const { output } = await z.finish(
          await z.exec({ cmd: world.routeScript(mode), workdir: world.root, yield_time_ms: 60_000 }, { timeout: 90_000 }),
          10_000,
          120_000,
        );
        outputs.set(mode, output);
      }),
    );
    return { world, outputs, branches: world.branches() };
  } catch (error) {
    await world.close();
    throw error;
  }
}

requirement('bounds.routes-governed', async ({ zodex }) => {
  test.setTimeout(240_000);
  const { world, outputs, branches } = await tryRoutes(zodex, ['read-only', 'publish-pr']);
  try {
    for (const mode of ['read-only', 'publish-pr'] as const) {
      const output = outputs.get(mode)!;
      expect(output, output).toContain('routes done');
      expect(branches.filter((branch) => branch.startsWith(`${mode}-`)).sort(), output).toEqual(expectedBranches(mode));
      for (const secret of world.secrets) expect(output, `${mode}: a credential reached the output`).not.toContain(secret);
      // the read-only credential could read: the clone of the pull request's checkout worked
      expect(output).toMatch(/route read-credential: refused/);
    }
    expect(outputs.get('publish-pr')).toMatch(/route publish-pr: pushed/);
    expect(world.pulls.map((pull) => pull.body.head)).toEqual(['publish-pr-publish-pr']);
  } finally {
    await world.close();
  }
});

requirement('bounds.routes-direct', async ({ zodex }) => {
  test.setTimeout(240_000);
  const { world, outputs, branches } = await tryRoutes(zodex, ['direct']);
  try {
    const output = outputs.get('direct')!;
    expect(branches.filter((branch) => branch.startsWith('direct-')).sort(), output).toEqual(expectedBranches('direct').sort());
  } finally {
    await world.close();
  }
});

requirement('bounds.default-mode', async ({ zodex }) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-default-mode-'));
  try {
    const z = await zodex({ env: { HOME: home, GH_TOKEN: 'ghp_defaultModeCanary0123456789', GITHUB_TOKEN: 'ghp_defaultModeCanary0123456789' } });
    const vars = await z.sh('echo "[$ZODEX_WRITE_MODE][${GH_TOKEN-}][${GITHUB_TOKEN-}]"');
    expect(vars).toBe('[publish-pr][][]\n');
    expect(z.server.stderr()).toMatch(/write mode: publish-pr \(the default\): commands run confined/);
    const instructions = z.client.getInstructions() ?? '';
    expect(instructions).toContain('Write mode publish-pr: commands cannot push; open pull requests with zodex-agent github publish-pr.');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

requirement('bounds.own-code', async ({ zodex }) => {
  test.skip(
    process.getuid?.() !== 0,
    'root only: a normal user cannot write /etc or /usr anyway (spec/features/bounds/routes-user.test.ts checks the private folder)',
  );
  const z = await zodex({});
  await z.sh('true'); // the standby pool and its zygote are up
  const zygote = execFileSync('pgrep', ['-P', String(z.server.pid), '-f', '--', '--zygote'], { encoding: 'utf8' })
    .trim()
    .split('\n')[0]!;
  const helper = fs.readlinkSync(`/proc/${zygote}/exe`);
  expect(helper).toMatch(/\/zodex-bounds-\d+-[^/]+\/zodex-spawn$/);
  const before = fs.readFileSync(helper);
  const attempt = await z.exec({
    cmd: `echo x >> '${helper}'; echo y > /etc/ld.so.preload; touch /usr/bin/zodex-probe; echo "entries: $(ls -A '${path.dirname(helper)}' | wc -l)"`,
    workdir: '/tmp',
  });
  expect(attempt.output.match(/Read-only file system/g)).toHaveLength(3);
  expect(attempt.output).toMatch(/^entries: 0$/m);
  expect(fs.readFileSync(helper).equals(before)).toBe(true);
  expect(fs.existsSync('/etc/ld.so.preload') && fs.readFileSync('/etc/ld.so.preload', 'utf8').includes('y')).toBe(false);
  const next = await z.exec({
    cmd: `cat /proc/${z.server.pid}/environ >/dev/null 2>&1 && echo readable || echo refused; grep CapEff /proc/self/status`,
    workdir: '/tmp',
  });
  expect(next.output).toMatch(/^refused\nCapEff:\s+0+\n$/);
});

requirement('bounds.patch-stores', async ({ zodex }) => {
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-patch-stores-')));
  try {
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY canary\n');
    fs.writeFileSync(path.join(home, '.git-credentials'), 'https://writer:secretCanary@example.com\n');
    const z = await zodex({ args: ['--write-mode', 'read-only'], env: { HOME: home } });
    const patch = [
      '*** Begin Patch',
      `*** Update File: ${home}/.git-credentials`,
      `*** Move to: ${home}-stolen`,
      '@@',
      '-https://writer:secretCanary@example.com',
      '+x',
      `*** Add File: ${home}/.ssh/authorized_keys`,
      '+ssh-ed25519 AAAA attacker',
      `*** Add File: ${home}/notes.txt`,
      '+fine',
      '*** End Patch',
    ].join('\n');
    const result = await z.patch(home, patch);
    const text = textOf(result);
    expect(result.isError).toBe(true);
    expect(text.match(/\[CREDENTIAL_STORE_DENIED\]/g)).toHaveLength(2);
    expect(text).not.toContain('secretCanary');
    expect(fs.readFileSync(path.join(home, '.git-credentials'), 'utf8')).toContain('secretCanary');
    expect(fs.existsSync(`${home}-stolen`)).toBe(false);
    expect(fs.existsSync(path.join(home, '.ssh', 'authorized_keys'))).toBe(false);
    expect(fs.readFileSync(path.join(home, 'notes.txt'), 'utf8')).toBe('fine\n');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(`${home}-stolen`, { force: true });
  }
});

requirement('bounds.sandbox-workspace-write', async ({ zodex }) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-sandbox-ww-')));
  // outside /tmp: under the sandbox the host's /tmp is not even visible (the private one is)
  const outside = fs.realpathSync(fs.mkdtempSync('/var/tmp/zodex-sandbox-outside-'));
  try {
    const [work, extra] = ['work', 'extra'].map((name) => path.join(root, name));
    for (const dir of [work!, extra!]) fs.mkdirSync(dir);
    fs.symlinkSync(outside, path.join(work!, 'link-out'));
    const z = await zodex({ args: ['--sandbox', 'workspace-write', '--writable-root', extra!] });
    const ok = await z.exec({
      cmd: `echo a > in-work && echo b > ${extra}/in-extra && echo c > /tmp/zodex-private-tmp-probe && cat /tmp/zodex-private-tmp-probe`,
      workdir: work!,
    });
    expect(ok.exit_code, ok.output).toBe(0);
    expect(ok.sandbox_refused).toBeUndefined();
    expect(fs.readFileSync(path.join(work!, 'in-work'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(extra!, 'in-extra'), 'utf8')).toBe('b\n');
    expect(fs.existsSync('/tmp/zodex-private-tmp-probe'), 'the sandbox /tmp is private').toBe(false);
    const refused = await z.exec({ cmd: `echo x > ${outside}/file; echo y > link-out/file; touch ${os.homedir()}/zodex-sandbox-probe`, workdir: work! });
    expect(refused.output).toMatch(/Read-only file system/);
    expect(refused.sandbox_refused).toMatch(/^the sandbox \(workspace-write\) refused a write/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.existsSync(path.join(os.homedir(), 'zodex-sandbox-probe'))).toBe(false);
    const patch = [
      '*** Begin Patch',
      '*** Add File: kept.txt',
      '+kept',
      `*** Add File: ${outside}/out.txt`,
      '+no',
      '*** Add File: link-out/through-link.txt',
      '+no',
      '*** End Patch',
    ].join('\n');
    const result = await z.patch(work!, patch);
    expect(result.isError).toBe(true);
    expect(textOf(result).match(/\[SANDBOX_WRITE_DENIED\]/g)).toHaveLength(2);
    expect(fs.readFileSync(path.join(work!, 'kept.txt'), 'utf8')).toBe('kept\n');
    expect(fs.readdirSync(outside)).toEqual([]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
});

requirement('bounds.sandbox-spill-visible', async ({ zodex }) => {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-sandbox-spill-')));
  try {
    for (const sandbox of ['read-only', 'workspace-write']) {
      const z = await zodex({ args: ['--sandbox', sandbox] });
      // 200,000 bytes: past the inline limit, so the stream spills into zodexd's spill folder
      const spilled = await z.exec({ cmd: "head -c 200000 /dev/zero | tr '\\0' x", workdir: work });
      expect(spilled.output_file, sandbox).toBeDefined();
      const file = spilled.output_file!;
      const read = await z.exec({ cmd: `wc -c < '${file}'; echo more >> '${file}' || echo append-refused`, workdir: work });
      expect(read.output, sandbox).toMatch(/^200000\s/);
      expect(read.output, sandbox).toMatch(/append-refused/);
      expect(fs.statSync(file).size, sandbox).toBe(200000);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

requirement('bounds.sandbox-read-only', async ({ zodex }) => {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-sandbox-ro-')));
  try {
    const z = await zodex({ args: ['--sandbox', 'read-only'] });
    const result = await z.exec({ cmd: 'cat /etc/passwd >/dev/null && echo read-ok; echo x > here; echo y > /tmp/t && echo tmp-ok', workdir: work });
    expect(result.output).toMatch(/read-ok/);
    expect(result.output).toMatch(/tmp-ok/);
    expect(result.sandbox_refused).toMatch(/^the sandbox \(read-only\) refused a write .*only under \/tmp/);
    expect(fs.readdirSync(work)).toEqual([]);
    const patch = await z.patch(work, '*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch');
    expect(textOf(patch)).toMatch(/\[SANDBOX_WRITE_DENIED\]/);
    expect(fs.readdirSync(work)).toEqual([]);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
});

requirement('bounds.network-off', async ({ zodex }) => {
  const hits: string[] = [];
  const tcp = net.createServer((socket) => {
    hits.push('tcp');
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => hits.push('udp'));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  const tcpPort = (tcp.address() as net.AddressInfo).port;
  const udpPort = udp.address().port;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-network-off-'));
  const unixPath = path.join(dir, 's');
  const unix = net.createServer((socket) => socket.end('unix-ok\n'));
  await new Promise<void>((resolve) => unix.listen(unixPath, resolve));
  fs.chmodSync(unixPath, 0o666);
  try {
    const z = await zodex({ args: ['--sandbox-network', 'off', '--write-mode', 'direct'] });
    const cmd = [
      `exec 3<>/dev/tcp/127.0.0.1/${tcpPort} && echo tcp-connected`,
      `echo ping > /dev/udp/127.0.0.1/${udpPort} && echo udp-sent`,
      `python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.connect(("::1", ${tcpPort}))' 2>&1 | tail -1`,
      `python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("${unixPath}"); print(s.recv(20).decode().strip())'`,
      'true',
    ].join('; ');
    const result = await z.exec({ cmd, workdir: dir });
    expect(result.output).not.toMatch(/tcp-connected|udp-sent/);
    expect(result.output).toMatch(/unix-ok/);
    expect(Number(/^the sandbox refused (\d+) network connections/.exec(result.sandbox_refused ?? '')?.[1])).toBeGreaterThanOrEqual(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(hits).toEqual([]);
  } finally {
    tcp.close();
    udp.close();
    unix.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A tiny launcher that runs a program under a seccomp filter refusing one system call, as a host
// without the facility (or a container's profile) would: compiled here with the C compiler npm ci
// already needs.
function denyingLauncher(dir: string): string {
  const source = path.join(dir, 'deny.c');
  fs.writeFileSync(
    source,
    `#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
int main(int argc, char **argv) {
  if (argc < 4) return 2;
  long nr = strcmp(argv[1], "unshare") == 0 ? SYS_unshare : SYS_landlock_create_ruleset;
  unsigned err = (unsigned)atoi(argv[2]);
  struct sock_filter code[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {4, code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program)) return 3;
  execvp(argv[3], &argv[3]);
  return 4;
}
`,
  );
  const binary = path.join(dir, 'deny');
  execFileSync('cc', ['-O1', '-o', binary, source]);
  return binary;
}

function runUnder(launcher: string[], args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(launcher[0]!, [...launcher.slice(1), process.execPath, ZODEXD, ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
    child.stdin.end();
  });
}

requirement('bounds.refuses-unenforceable', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-unenforceable-'));
  try {
    const deny = denyingLauncher(dir);
    const noNamespaces = await runUnder([deny, 'unshare', String(1 /* EPERM */)], []);
    expect(noNamespaces.code).toBe(1);
    expect(noNamespaces.stderr).toMatch(/cannot confine commands as --write-mode publish-pr asks: unshare\(CLONE_NEW[A-Z|]+\).*Operation not permitted/);
    expect(noNamespaces.stderr).toMatch(/--write-mode direct --sandbox off --sandbox-network on/);
    const noLandlock = await runUnder([deny, 'landlock', String(38 /* ENOSYS */)], ['--sandbox', 'read-only']);
    expect(noLandlock.code).toBe(1);
    expect(noLandlock.stderr).toMatch(/Landlock is not in this kernel/);
    const direct = await runUnder([deny, 'unshare', String(1)], ['--write-mode', 'direct']);
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stderr).toMatch(/write mode: direct: commands run as this user, unconfined/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
