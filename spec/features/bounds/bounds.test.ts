// The bounds as data (src/bounds/): the one write-mode setting, where credentials live, which
// folders are pinned, the token values a startup file assigns and the redacted copies made of
// the files that hold them, the read-only credential file, and the secrets registry.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_MODE, isGoverned, resolveWriteMode } from '../../../src/bounds/modes.js';
import { loadReadCredentials, readCredentialEnv } from '../../../src/features/bounds/readcreds.js';
import { candidateFiles, redactedCopies, tokenValuesIn } from '../../../src/features/bounds/startfiles.js';
import { credentialStores, pinnedFolders, tokenAssignments, writtenCredentials } from '../../../src/features/bounds/stores.js';

const scratch: string[] = [];
const tempDir = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-bounds-test-')));
  scratch.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the write mode', () => {
  it('is --write-mode, else ZODEX_WRITE_MODE, else publish-pr, and says where it came from', () => {
    expect(DEFAULT_WRITE_MODE).toBe('publish-pr');
    expect(resolveWriteMode(undefined, {})).toEqual({ mode: 'publish-pr', source: 'the default' });
    expect(resolveWriteMode(undefined, { ZODEX_WRITE_MODE: 'read-only' })).toEqual({ mode: 'read-only', source: 'ZODEX_WRITE_MODE' });
    expect(resolveWriteMode('direct', { ZODEX_WRITE_MODE: 'read-only' })).toEqual({ mode: 'direct', source: '--write-mode' });
    expect(() => resolveWriteMode(undefined, { ZODEX_WRITE_MODE: 'push-all' })).toThrow(
      /^ZODEX_WRITE_MODE "push-all" is not one of read-only, publish-pr, direct/,
    );
    expect(() => resolveWriteMode('x'.repeat(500), {})).toThrow(/"x{40}…" is not one of/);
    expect([isGoverned('read-only'), isGoverned('publish-pr'), isGoverned('direct')]).toEqual([true, true, false]);
  });
});

describe('the credential stores', () => {
  it('lists every store of every home and of the environment, each once, with its home', () => {
    const stores = credentialStores(['/home/u', '/root'], {
      GH_CONFIG_DIR: '/opt/gh',
      XDG_CONFIG_HOME: '/home/u/.cfg',
      SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
      GNUPGHOME: 'relative/ignored',
    });
    const paths = stores.map((store) => store.path);
    for (const expected of [
      '/home/u/.git-credentials',
      '/home/u/.netrc',
      '/home/u/.ssh',
      '/home/u/.config/gh',
      '/root/.config/git/credentials',
      '/opt/gh',
      '/home/u/.cfg/gh',
      '/tmp/ssh-x/agent.1',
      '/tmp/.X11-unix',
    ]) {
      expect(paths).toContain(expected);
    }
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths.some((file) => file.includes('relative'))).toBe(false);
    expect(stores.find((store) => store.path === '/home/u/.cfg/gh')?.home).toBe('/home/u');
    expect(stores.find((store) => store.path === '/opt/gh')?.home).toBeUndefined();
  });

  it('pins the folders between a home and its stores, parents first, and the home itself when it can be moved', () => {
    const stores = credentialStores(['/home/u'], {});
    const fixed = pinnedFolders(stores, () => false);
    expect(fixed).toEqual(['/home/u/.cache', '/home/u/.config', '/home/u/.local', '/home/u/.cache/git', '/home/u/.config/git', '/home/u/.local/share']);
    expect(pinnedFolders(stores, (home) => home === '/home/u')[0]).toBe('/home/u');
  });
});

describe('token values in startup files', () => {
  it("finds a token variable's literal value in sh, fish and csh syntax, never a word of a comment", () => {
    const text = [
      'export GH_TOKEN=ghp_plainValue123456',
      'GITHUB_TOKEN="ghp_double quoted"', // a space: not a token, cut at the quote rules
      "export GITHUB_TOKEN='ghp_singleQuoted99'",
      'set -gx GH_ENTERPRISE_TOKEN ghe_fishValue12345',
      'setenv GITLAB_TOKEN glpat-cshValue1234',
      '# set GH_TOKEN environment variable before running',
      'export GH_TOKEN=$(gh auth token)',
      'export GH_TOKEN=short',
    ].join('\n');
    expect(tokenAssignments(text).sort()).toEqual(
      ['ghe_fishValue12345', 'ghp_double quoted', 'ghp_plainValue123456', 'ghp_singleQuoted99', 'glpat-cshValue1234'].sort(),
    );
  });

  it("finds a URL's password and git's extraheader written into a file, as CI checkouts leave them", () => {
    const gitconfig = [
      '[url "https://x-access-token:ghs_urlPassword01234@github.com/"]',
      '\tinsteadOf = https://github.com/',
      '[http "https://github.com/"]',
      '\textraheader = AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2hlYWRlcg==',
      '[remote "origin"]',
      '\turl = https://github.com/acme/widgets.git',
    ].join('\n');
    expect(writtenCredentials(gitconfig)).toEqual(['ghs_urlPassword01234', 'eC1hY2Nlc3MtdG9rZW46Z2hzX2hlYWRlcg==']);
    expect(writtenCredentials('see https://user@example.com and http://a:b@c')).toEqual([]);
  });

  it('makes a copy without the values of each file that holds one, and leaves masked files alone', () => {
    const home = tempDir();
    const folder = tempDir();
    fs.writeFileSync(path.join(home, '.bashrc'), 'alias ll="ls -l"\nexport GH_TOKEN=ghp_fromTheRcFile0123\n');
    fs.mkdirSync(path.join(home, '.config', 'tool'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'tool', 'env'), 'TOKEN=ghp_fromTheEnvironment99\n');
    fs.writeFileSync(path.join(home, '.netrc'), 'password ghp_fromTheEnvironment99\n');
    fs.writeFileSync(path.join(home, 'notes'), 'nothing here\n');
    const files = candidateFiles([home]);
    expect(files).toEqual(expect.arrayContaining([path.join(home, '.bashrc'), path.join(home, '.config', 'tool', 'env'), path.join(home, 'notes')]));
    const values = [...tokenValuesIn(files), 'ghp_fromTheEnvironment99'];
    expect(values).toContain('ghp_fromTheRcFile0123');
    const binds = redactedCopies(values, files, folder, (file) => file === path.join(home, '.netrc'));
    expect(binds.map((bind) => bind.target).sort()).toEqual([path.join(home, '.bashrc'), path.join(home, '.config', 'tool', 'env')].sort());
    const rc = binds.find((bind) => bind.target.endsWith('.bashrc'))!;
    expect(fs.readFileSync(rc.source, 'utf8')).toBe('alias ll="ls -l"\nexport GH_TOKEN=\n');
    expect(fs.statSync(rc.source).mode & 0o777).toBe(0o600);
    expect(redactedCopies(['short'], files, folder, () => false)).toEqual([]);
  });
});

describe('--git-read-credentials', () => {
  it("reads git's store format and hands git its store helper after resetting the user's", () => {
    const dir = tempDir();
    const file = path.join(dir, 'read');
    fs.writeFileSync(file, 'https://reader:rd%40pass@git.example.com\n\nhttp://bot:tok@127.0.0.1:8080/org\n');
    const loaded = loadReadCredentials(file);
    expect(loaded.credentials).toEqual([
      { url: 'https://reader@git.example.com', username: 'reader', password: 'rd@pass' },
      { url: 'http://bot@127.0.0.1:8080/org', username: 'bot', password: 'tok' },
    ]);
    expect(readCredentialEnv("/a/it's", { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'x.y', GIT_CONFIG_VALUE_0: 'z' })).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_1: 'credential.helper',
      GIT_CONFIG_VALUE_1: '',
      GIT_CONFIG_KEY_2: 'credential.helper',
      GIT_CONFIG_VALUE_2: "store --file='/a/it'\\''s'",
    });
  });

  it('refuses a relative path, an unreadable file, a line without a password, an empty file', () => {
    const dir = tempDir();
    const at = (text: string) => {
      const file = path.join(dir, `f${Math.random()}`);
      fs.writeFileSync(file, text);
      return file;
    };
    expect(() => loadReadCredentials('relative/file')).toThrow(/must be an absolute path/);
    expect(() => loadReadCredentials(path.join(dir, 'missing'))).toThrow(/cannot be read \(ENOENT\)/);
    expect(() => loadReadCredentials(at('not a url\n'))).toThrow(/line 1 is not a URL/);
    expect(() => loadReadCredentials(at('https://user@host\n'))).toThrow(/line 1 has no user and password/);
    expect(() => loadReadCredentials(at('\n'))).toThrow(/holds no credential/);
  });
});
