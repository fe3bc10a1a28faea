import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { gitBaseEnv, StagingRepo, type GitRunner } from '../../../src/features/publisher/git.js';
import { gitConfigEnv, readTokenFile, redactor, Secret, takeTokenFromEnv } from '../../../src/features/publisher/token.js';
import { tempDir, TOKEN } from './helpers.js';

const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

describe('Secret', () => {
  it('never prints its value', () => {
    const secret = new Secret(TOKEN);
    expect(String(secret)).toBe('***');
    expect(`${secret}`).toBe('***');
    expect(JSON.stringify({ secret })).toBe('{"secret":"***"}');
    expect(inspect({ secret })).not.toContain(TOKEN);
    expect(secret.reveal()).toBe(TOKEN);
  });
});

describe('token file', () => {
  it('reads a 0600 file of ours, trimming the newline', () => {
    const dir = tempDir();
    const file = path.join(dir, 'token');
    fs.writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    expect(readTokenFile(file).reveal()).toBe(TOKEN);
    fs.chmodSync(file, 0o400);
    expect(readTokenFile(file).reveal()).toBe(TOKEN);
    fs.rmSync(dir, { recursive: true });
  });

  it('refuses group- or world-readable files, directories, missing files, and junk', () => {
    const dir = tempDir();
    const file = path.join(dir, 'token');
    fs.writeFileSync(file, TOKEN, { mode: 0o600 });
    for (const mode of [0o640, 0o604, 0o644, 0o660]) {
      fs.chmodSync(file, mode);
      expect(() => readTokenFile(file)).toThrow(`has mode ${mode.toString(8)}, readable by others; run \`chmod 600 ${file}\``);
    }
    expect(() => readTokenFile(dir)).toThrow(/is not a regular file/);
    expect(() => readTokenFile(path.join(dir, 'missing'))).toThrow(/cannot be opened \(ENOENT\)/);
    fs.chmodSync(file, 0o600);
    fs.writeFileSync(file, 'ab cd efgh ijkl');
    expect(() => readTokenFile(file)).toThrow(/spaces, line breaks/);
    fs.writeFileSync(file, '\n');
    expect(() => readTokenFile(file)).toThrow(/holds no token/);
    // A symlink is judged by its target.
    const target = path.join(dir, 'real');
    fs.writeFileSync(target, TOKEN, { mode: 0o644 });
    fs.chmodSync(target, 0o644);
    fs.symlinkSync(target, path.join(dir, 'link'));
    expect(() => readTokenFile(path.join(dir, 'link'))).toThrow(/mode 644/);
    fs.rmSync(dir, { recursive: true });
  });

  it('takes the token from the environment and removes every publisher secret from it', () => {
    const env: NodeJS.ProcessEnv = { ZODEX_PUBLISHER_TOKEN: TOKEN, GITHUB_TOKEN_ZODEX_PUBLISHER: 'x', KEEP: '1' };
    expect(takeTokenFromEnv(env)?.reveal()).toBe(TOKEN);
    expect(env).toEqual({ KEEP: '1' });
    expect(takeTokenFromEnv({})).toBeUndefined();
  });
});

describe('handing the token to git', () => {
  it('puts it in an extraHeader for the push URL origin only, through GIT_CONFIG_* entries', () => {
    const env = gitConfigEnv('https://github.com/acme/widgets.git', new Secret(TOKEN), { 'http.sslCAInfo': '/ca.pem' });
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'http.sslCAInfo',
      GIT_CONFIG_VALUE_0: '/ca.pem',
      GIT_CONFIG_KEY_1: 'http.followRedirects',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_CONFIG_KEY_2: 'http.https://github.com/.extraHeader',
      GIT_CONFIG_VALUE_2: `Authorization: Basic ${BASIC}`,
    });
    expect(gitConfigEnv('/srv/git/x.git', new Secret(TOKEN), {})).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.followRedirects',
      GIT_CONFIG_VALUE_0: 'false',
    });
  });

  it('the push, the remote lookup and the undo carry the token only in the environment, never in argv', async () => {
    const calls: Array<{ args: string[]; env: Record<string, string> | undefined }> = [];
    const fake: GitRunner = async (args, options) => {
      calls.push({ args, env: options.env });
      return { code: 0, stdout: '', stderr: '' };
    };
    const staging = new StagingRepo(fake, '/nonexistent');
    const authEnv = gitConfigEnv('https://github.com/acme/widgets.git', new Secret(TOKEN), {});
    await staging.remoteBranch('https://github.com/acme/widgets.git', 'feature', authEnv);
    await staging.push('https://github.com/acme/widgets.git', 'a'.repeat(40), 'feature', authEnv);
    await staging.undoPush('https://github.com/acme/widgets.git', 'feature', 'a'.repeat(40), undefined, authEnv);
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      const argv = call.args.join(' ');
      expect(argv).not.toContain(TOKEN);
      expect(argv).not.toContain(BASIC);
      expect(argv).not.toMatch(/--force(?!-with-lease)/);
      expect(Object.values(call.env ?? {})).toContain(`Authorization: Basic ${BASIC}`);
      expect(call.env).toMatchObject({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' });
    }
    expect(calls[1]?.args).toEqual([
      '-c',
      'core.hooksPath=/dev/null',
      'push',
      '--porcelain',
      '--no-verify',
      'https://github.com/acme/widgets.git',
      `${'a'.repeat(40)}:refs/heads/feature`,
    ]);
  });

  it("git children start without the daemon's secrets or GIT_* redirections", () => {
    const env = gitBaseEnv({ PATH: '/bin', ZODEX_PUBLISHER_TOKEN: TOKEN, GIT_DIR: '/x', GIT_TRACE_CURL: '1', GIT_SSL_CAINFO: '/ca', GIT_CONFIG_COUNT: '1' });
    expect(env).toEqual({ PATH: '/bin', GIT_SSL_CAINFO: '/ca', GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', LC_ALL: 'C' });
  });
});

describe('redactor', () => {
  it('replaces the token and the encodings we produce, and any Authorization header value', () => {
    const redact = redactor(new Secret(TOKEN));
    const text = `fatal: https://x-access-token:${TOKEN}@github.com failed; header ${BASIC}; ${Buffer.from(TOKEN).toString('base64')}; Authorization: Bearer abc`;
    const out = redact(text);
    expect(out).not.toContain(TOKEN);
    expect(out).not.toContain(BASIC);
    expect(out).toContain('Authorization: Bearer ***');
    expect(out.match(/\*\*\*/g)?.length).toBe(4);
    expect(redactor(undefined)('plain')).toBe('plain');
  });
});
