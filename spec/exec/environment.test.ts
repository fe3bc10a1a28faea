// The command environment applies the caller's policy as data (the engine knows no product):
// removed names are gone, set names win over the captured environment and the overrides.

import { describe, expect, it } from 'vitest';
import { COMMAND_ENV_OVERRIDES, commandEnv, serverEnvironment } from '../../src/exec/environment.js';

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
