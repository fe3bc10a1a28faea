import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePublisherArgs, type PublisherSettings } from '../../../src/cli/commands/publisher.js';
import { tempDir, TOKEN } from './helpers.js';

function setup(): { dir: string; tokenFile: string; configFile: string } {
  const dir = tempDir();
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const configFile = path.join(dir, 'publisher.json');
  fs.writeFileSync(configFile, JSON.stringify({ allowedRemotes: [{ repo: 'acme/widgets' }] }));
  return { dir, tokenFile, configFile };
}

function settings(argv: string[], env: NodeJS.ProcessEnv = {}): PublisherSettings {
  const parsed = parsePublisherArgs(argv, env);
  if (parsed.kind !== 'run') throw new Error('expected run');
  return parsed.settings;
}

describe('zodex publisher flags', () => {
  it("defaults to zodexd's default, publish-pr, which needs the token and the config", () => {
    const { dir, tokenFile, configFile } = setup();
    const s = settings(['--token-file', tokenFile, '--config', configFile], { XDG_RUNTIME_DIR: '/run/user/7', XDG_STATE_HOME: '/state' });
    expect(s.mode).toBe('publish-pr');
    expect(s.tokenFile).toBe(tokenFile);
    expect(s.socketPath).toBe('/run/user/7/zodex/publisher.sock');
    expect(s.stateDir).toBe('/state/zodex');
    const readOnly = settings(['--write-mode', 'read-only']);
    expect(readOnly.token).toBeUndefined();
    expect(readOnly.config.allowedRemotes).toEqual([]);
    fs.rmSync(dir, { recursive: true });
  });

  it('reads mode, token file, config, socket, api base, state dir', () => {
    const { dir, tokenFile, configFile } = setup();
    const s = settings([
      '--write-mode',
      'direct',
      '--token-file',
      tokenFile,
      '--config',
      configFile,
      '--socket',
      '/s/p.sock',
      '--api-base',
      'https://ghe.example/api/v3',
      '--state-dir',
      '/st',
    ]);
    expect(s).toMatchObject({ mode: 'direct', socketPath: '/s/p.sock', stateDir: '/st' });
    expect(s.token?.reveal()).toBe(TOKEN);
    expect(s.config.apiBase).toBe('https://ghe.example/api/v3');
    expect(s.config.gitBase).toBe('https://ghe.example');
    expect(settings([], { ZODEX_WRITE_MODE: 'read-only', ZODEX_PUBLISHER_SOCKET: '/e/p.sock' }).socketPath).toBe('/e/p.sock');
    fs.rmSync(dir, { recursive: true });
  });

  it('takes the token from ZODEX_PUBLISHER_TOKEN and scrubs it from the environment, even on error', () => {
    const { dir, configFile } = setup();
    const env: NodeJS.ProcessEnv = { ZODEX_PUBLISHER_TOKEN: TOKEN };
    expect(settings(['--write-mode', 'publish-pr', '--config', configFile], env).token?.reveal()).toBe(TOKEN);
    expect(env.ZODEX_PUBLISHER_TOKEN).toBeUndefined();
    const env2: NodeJS.ProcessEnv = { ZODEX_PUBLISHER_TOKEN: TOKEN };
    expect(() => parsePublisherArgs(['--bogus'], env2)).toThrow();
    expect(env2.ZODEX_PUBLISHER_TOKEN).toBeUndefined();
    fs.rmSync(dir, { recursive: true });
  });

  it('refuses what cannot work, saying how to fix it', () => {
    const { dir, tokenFile, configFile } = setup();
    const refusal = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      try {
        parsePublisherArgs(argv, env);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`accepted ${argv.join(' ')}`);
    };
    expect(refusal(['--write-mode', 'yolo'])).toContain('--write-mode "yolo" is not one of read-only, publish-pr, direct');
    expect(refusal([], { ZODEX_WRITE_MODE: 'yolo' })).toContain('ZODEX_WRITE_MODE "yolo" is not one of read-only, publish-pr, direct');
    expect(refusal(['--mode', 'publish-pr'])).toContain('--mode is now --write-mode');
    expect(refusal(['--config', configFile])).toContain('--write-mode publish-pr needs the GitHub token: pass --token-file PATH');
    expect(refusal(['--write-mode', 'publish-pr', '--token-file', tokenFile])).toContain('needs --config PATH');
    expect(refusal(['--token-file', tokenFile], { ZODEX_PUBLISHER_TOKEN: TOKEN })).toContain('give the token one way only');
    fs.writeFileSync(path.join(dir, 'empty.json'), '{}');
    expect(refusal(['--write-mode', 'direct', '--token-file', tokenFile, '--config', path.join(dir, 'empty.json')])).toContain('lists no allowedRemotes');
    fs.chmodSync(tokenFile, 0o644);
    expect(refusal(['--write-mode', 'direct', '--token-file', tokenFile, '--config', configFile])).toMatch(/^UNSAFE_TOKEN_FILE: .*chmod 600/);
    expect(refusal(['--nope'])).toContain("Unknown option '--nope'");
    fs.rmSync(dir, { recursive: true });
  });
});
