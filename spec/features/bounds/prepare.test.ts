// zodexd's bounds at start (features/bounds/prepare.ts): direct mode confines nothing; a governed mode takes the
// token variables out, sends every command its confinement, keeps apply_patch from the stores,
// learns the token values the login shell exported and shows commands redacted copies of the
// files holding them; a publisher of another mode, or a host that cannot confine, stops the start.

import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BoundsError, prepareBounds } from '../../../src/features/bounds/prepare.js';
import { configFor } from '../../../src/app/config/parse.js';
import { commandEnv } from '../../../src/exec/environment.js';
import { SecretRegistry } from '../../../src/secrets.js';

const HELPER = path.resolve(import.meta.dirname, '../../../build/Release/zodex-spawn');
const saved = { ...process.env };
let home: string;
const log = () => {};

beforeEach(() => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-app-bounds-')));
  secrets = new SecretRegistry();
  process.env.HOME = home;
  process.env.ZODEX_PUBLISHER_SOCKET = path.join(home, 'no-publisher.sock');
  delete process.env.XDG_RUNTIME_DIR;
});
afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  fs.rmSync(home, { recursive: true, force: true });
});

let secrets = new SecretRegistry();
const prepare = (argv: string[], spawnHelper = HELPER) =>
  prepareBounds(configFor(['--state-dir', path.join(home, 'state'), ...argv]), { spawnHelper, shell: '/bin/sh', log, secrets });

describe('zodexd bounds', () => {
  it('confine nothing in direct mode without a sandbox', async () => {
    const bounds = await prepare(['--write-mode', 'direct']);
    expect(bounds.runner).toBeUndefined();
    expect(bounds.environment.set).toEqual({ ZODEX_WRITE_MODE: 'direct' });
    expect(bounds.environment.remove).toContain('ZODEX_AUTH_TOKEN');
    expect(bounds.environment.remove).not.toContain('GH_TOKEN');
    expect(bounds.patches).toMatchObject({ denied: [], sandbox: 'off' });
    expect(bounds.describe[0]).toMatch(/^write mode: direct: commands run as this user, unconfined/);
  });

  it('govern by default: tokens out, the confinement in, the stores denied to apply_patch', async () => {
    const bounds = await prepare([]);
    try {
      const env = commandEnv(
        { PATH: '/bin', HOME: home, GH_TOKEN: 'ghp_governedDefault0123', SSH_AUTH_SOCK: '/tmp/a.sock', ZODEX_AUTH_TOKEN: 'a'.repeat(32) },
        bounds.environment,
      );
      expect(env.GH_TOKEN ?? env.SSH_AUTH_SOCK ?? env.ZODEX_AUTH_TOKEN).toBeUndefined();
      expect(env).toMatchObject({ ZODEX_WRITE_MODE: 'publish-pr', GIT_TERMINAL_PROMPT: '0' });
      expect(env.ZODEX_CONFINE).toMatch(/^g1:1/);
      expect(bounds.runner?.[1]).toBe('--exec');
      expect(bounds.patches.denied).toEqual(expect.arrayContaining([path.join(home, '.git-credentials'), path.join(home, '.ssh'), path.join(home, 'state')]));
      expect(bounds.describe[0]).toMatch(/^write mode: publish-pr \(the default\): commands run confined/);
    } finally {
      bounds.close();
    }
  });

  it("learn the login shell's token values and show commands the startup files without them", async () => {
    fs.writeFileSync(path.join(home, '.profile'), 'export GH_TOKEN="$(cat ~/.secret)"\n');
    fs.writeFileSync(path.join(home, '.secret'), 'ghp_computedByTheShell0123\n');
    const credentials = path.join(home, 'read-credentials');
    fs.writeFileSync(credentials, 'https://reader:readerToken01@git.example.com\n');
    const bounds = await prepare(['--git-read-credentials', credentials]);
    try {
      // the login shell's environment, as the capture sees it before the policy removes anything
      const captured = commandEnv({ PATH: '/bin', HOME: home, GH_TOKEN: 'ghp_computedByTheShell0123' }, bounds.environment);
      const finished = await bounds.finish({ shell: '/bin/sh', env: captured, source: 'test' });
      const entry = finished.env.ZODEX_CONFINE!;
      expect(entry).toContain(`B${Buffer.byteLength(path.join(home, '.secret'))}:${path.join(home, '.secret')}`);
      const copy = /b(\d+):/.exec(entry)!;
      const source = entry.slice(copy.index + copy[0].length, copy.index + copy[0].length + Number(copy[1]));
      expect(fs.readFileSync(source, 'utf8')).toBe('\n');
      expect(finished.env).toMatchObject({
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'credential.helper',
        GIT_CONFIG_VALUE_0: '',
        GIT_CONFIG_VALUE_1: `store --file='${credentials}'`,
      });
      // both values join the one registry output redaction reads (src/secrets.ts), under the name
      // of where they were first found
      expect(secrets.list().map((entry) => entry.value)).toEqual(expect.arrayContaining(['readerToken01', 'ghp_computedByTheShell0123']));
    } finally {
      bounds.close();
    }
  });

  it('follow what a startup file sources, and refuse commands when a token still comes back through a login shell', async () => {
    fs.mkdirSync(path.join(home, 'dotfiles'));
    fs.writeFileSync(path.join(home, '.profile'), '. "$HOME/dotfiles/secrets.sh"\n');
    fs.writeFileSync(path.join(home, 'dotfiles', 'secrets.sh'), 'export GH_TOKEN=ghp_sourcedTwoLevels01234\n');
    const bounds = await prepare([]);
    try {
      const captured = commandEnv({ PATH: '/usr/bin:/bin', HOME: home, GH_TOKEN: 'ghp_sourcedTwoLevels01234' }, bounds.environment);
      const finished = await bounds.finish({ shell: '/bin/bash', env: captured, source: 'test' });
      expect(finished.env.ZODEX_CONFINE).toContain(path.join(home, 'dotfiles', 'secrets.sh'));
      // the same token, read by cat from a file nothing sources: found by the check, not by the scan
      fs.writeFileSync(path.join(home, 'dotfiles', 'secrets.sh'), 'export GH_TOKEN=$(cat "$HOME/dotfiles/token")\n');
      fs.writeFileSync(path.join(home, 'dotfiles', 'token'), 'ghp_readByCat0123456789\n');
      const leaking = await prepare([]);
      try {
        const env = commandEnv({ PATH: '/usr/bin:/bin', HOME: home, GH_TOKEN: 'ghp_readByCat0123456789' }, leaking.environment);
        await expect(leaking.finish({ shell: '/bin/bash', env, source: 'test' })).rejects.toMatchObject({
          code: 'SPAWN_FAILED',
          message: expect.stringMatching(/^your login shell gives commands a token/),
        });
      } finally {
        leaking.close();
      }
    } finally {
      bounds.close();
    }
  });

  it('refuse to start beside a publisher of another mode, naming both; read-only only masks its token file', async () => {
    const socket = path.join(home, 'publisher.sock');
    const server = net.createServer((connection) => {
      connection.once('data', () => {
        const result = {
          mode: 'direct',
          pid: 1,
          version: 'x',
          apiBase: 'a',
          gitBase: 'g',
          defaultRemote: 'origin',
          protectedBranches: [],
          allowedRemotes: [],
          tokenLoaded: true,
          tokenFile: '/srv/token',
        };
        connection.end(`${JSON.stringify({ version: 1, id: 'x', ok: true, result })}\n`);
      });
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    process.env.ZODEX_PUBLISHER_SOCKET = socket;
    try {
      await expect(prepare(['--write-mode', 'publish-pr'])).rejects.toThrow(
        new BoundsError(
          `zodexd's write mode is publish-pr (--write-mode) but the publisher at ${socket} runs in direct; they must agree: start both with the same --write-mode (or ZODEX_WRITE_MODE)`,
        ),
      );
      const readOnly = await prepare(['--write-mode', 'read-only']);
      expect(readOnly.patches.denied).toEqual(expect.arrayContaining(['/srv/token', home]));
      readOnly.close();
    } finally {
      server.close();
    }
  });

  it('refuse to start when the host cannot take a step, naming it and the remedy, and leave nothing behind', async () => {
    const fake = path.join(home, 'fake-spawn');
    fs.writeFileSync(fake, '#!/bin/sh\necho "unshare(CLONE_NEWUSER|CLONE_NEWNS) (user namespaces): Operation not permitted"\nexit 1\n', { mode: 0o755 });
    const before = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`zodex-bounds-${process.pid}-`));
    const error = await prepare(['--sandbox', 'read-only'], fake).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(BoundsError);
    expect(error?.message).toMatch(
      /^cannot confine commands as --write-mode publish-pr --sandbox read-only asks: unshare\(CLONE_NEWUSER\|CLONE_NEWNS\) \(user namespaces\): Operation not permitted\. unprivileged user namespaces are off or restricted here: `sysctl user\.max_user_namespaces`/,
    );
    expect(error?.message).toContain('start it with --write-mode direct --sandbox off --sandbox-network on');
    expect(fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`zodex-bounds-${process.pid}-`))).toEqual(before);
  });
});
