// Which values zodexd redacts (issue 26): the HTTP token, zodex's own secret variables and the
// --redact-env names and patterns, from zodexd's environment and, once captured, the login
// shell's; short values are redacted too, with a warning that never shows them.
import { describe, expect, it } from 'vitest';
import { configFor } from '../../src/app/config/parse.js';
import { addEnvironmentSecrets, startSecrets, unmatchedRedactNames } from '../../src/app/secrets.js';

const TOKEN = 'static-token-0123456789';

describe('startSecrets', () => {
  it('knows the HTTP token, the publisher token variables and the --redact-env values of the environment', () => {
    const env = {
      ZODEX_AUTH_TOKEN: TOKEN,
      ZODEX_PUBLISHER_TOKEN: 'ghp_publisher0123456789',
      OPENAI_API_KEY: 'sk-openai-0123456789',
      OPENAI_ORG: 'org-12',
      HOME: '/root',
    };
    const { secrets, warnings } = startSecrets(configFor(['--redact-env', 'OPENAI_*'], env), env);
    expect(
      secrets
        .list()
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(['OPENAI_API_KEY', 'OPENAI_ORG', 'ZODEX_AUTH_TOKEN', 'ZODEX_PUBLISHER_TOKEN']);
    expect(secrets.redactText(`${TOKEN} /root org-12`)).toBe('[REDACTED:ZODEX_AUTH_TOKEN] /root [REDACTED:OPENAI_ORG]');
    expect(warnings).toEqual([
      "--redact-env: OPENAI_ORG (zodexd's environment) is only 6 character(s) long; every occurrence of that text in output is shown as [REDACTED:OPENAI_ORG]",
    ]);
  });

  it('adds what the login shell exports, and names the --redact-env entries no environment has', () => {
    const { secrets } = startSecrets(configFor(['--redact-env', 'GH_TOKEN', '--redact-env', 'TYPO_*'], {}), {});
    expect(secrets.size).toBe(0);
    const login = { GH_TOKEN: 'gho_from_bashrc_0123456789', ZODEX_AUTH_TOKEN: 'another-token-from-rc-file' };
    expect(addEnvironmentSecrets(secrets, ['GH_TOKEN', 'TYPO_*'], login, "the login shell's environment")).toEqual([]);
    expect(secrets.redactText('gho_from_bashrc_0123456789 another-token-from-rc-file')).toBe('[REDACTED:GH_TOKEN] [REDACTED:ZODEX_AUTH_TOKEN]');
    expect(unmatchedRedactNames(['GH_TOKEN', 'TYPO_*'], [{}, login])).toEqual(['TYPO_*']);
  });
});
