// The command environment applies the caller's policy as data (the engine knows no product):
// removed names are gone, set names win over the captured environment and the overrides. The
// shell is the login shell of the passwd entry in Local mode, bash in Sprite mode.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseShell, COMMAND_ENV_OVERRIDES, commandEnv, serverEnvironment } from '../../src/exec/environment.js';

describe('commandEnv', () => {
  it('removes what the policy removes and sets what it sets, after the overrides', () => {
    const env = commandEnv({ PATH: '/bin', SECRET: 's', TERM: 'xterm', KEEP: 'k' }, { remove: ['SECRET'], set: { TERM: 'vt100', ADDED: '1' } });
    expect(env).toEqual({ ...COMMAND_ENV_OVERRIDES, PATH: '/bin', KEEP: 'k', TERM: 'vt100', ADDED: '1', LANG: 'C.UTF-8' });
  });

  it('keeps everything but the overrides with an empty policy', () => {
    expect(commandEnv({ A: 'a', LANG: 'fr_FR.UTF-8' }, { remove: [], set: {} })).toEqual({ ...COMMAND_ENV_OVERRIDES, A: 'a', LANG: 'fr_FR.UTF-8' });
  });

  it('applies the policy to the server environment too', () => {
    process.env.ZODEX_TEST_SECRET = 'x';
    try {
      expect(serverEnvironment('/bin/sh', { remove: ['ZODEX_TEST_SECRET'], set: {} }).env.ZODEX_TEST_SECRET).toBeUndefined();
    } finally {
      delete process.env.ZODEX_TEST_SECRET;
    }
  });
});

describe('the policy hook', () => {
  it('shows the caller each environment before anything is removed', () => {
    let seen: Readonly<Record<string, string>> | undefined;
    const env = commandEnv({ PATH: '/bin', GH_TOKEN: 'ghp_seen' }, { remove: ['GH_TOKEN'], set: {}, seen: (raw) => (seen = { ...raw }) });
    expect(seen).toMatchObject({ GH_TOKEN: 'ghp_seen' });
    expect(env.GH_TOKEN).toBeUndefined();
  });
});

describe("the shell of a command (issue 23: the login shell is the passwd entry's, not $SHELL)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-shells-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const shell = (name: string, mode = 0o755) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, '#!/bin/sh\n', { mode });
    return file;
  };
  const zsh = shell('zsh');
  const nologin = shell('nologin');
  const notExecutable = shell('fish', 0o644);

  it("takes the passwd entry's login shell in Local mode, whatever $SHELL says", () => {
    expect(chooseShell('local', { SHELL: '/bin/sh' }, () => zsh)).toEqual({ shell: zsh, from: 'the login shell of the passwd entry' });
  });

  it('falls back to $SHELL, then bash, when the passwd entry names no usable shell', () => {
    for (const passwd of [undefined, '', 'relative/zsh', nologin, '/usr/sbin/nologin', '/bin/false', notExecutable, path.join(dir, 'missing')]) {
      expect(
        chooseShell('local', { SHELL: zsh }, () => passwd),
        String(passwd),
      ).toEqual({ shell: zsh, from: '$SHELL: the passwd entry names no usable login shell' });
    }
    expect(chooseShell('local', {}, () => nologin).shell).toBe('/bin/bash');
  });

  it('runs bash in Sprite mode, whatever the passwd entry and $SHELL say', () => {
    expect(chooseShell('sprite', { SHELL: zsh }, () => zsh).shell).toBe('/bin/bash');
  });
});
