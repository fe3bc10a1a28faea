import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePublisherArgs, type PublisherSettings } from '../../src/cli/commands/publisher.js';
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
  it('defaults to read-only, needing neither token nor config', () => {
    const s = settings([], { XDG_RUNTIME_DIR: '/run/user/7', XDG_STATE_HOME: '/state' });
    expect(s.mode).toBe('read-only');
    expect(s.token).toBeUndefined();
    expect(s.socketPath).toBe('/run/user/7/zodex/publisher.sock');
    expect(s.stateDir).toBe('/state/zodex');
    expect(s.config.allowedRemotes).toEqual([]);
  });

  it('reads mode, token file, config, socket, api base, state dir', () => {
    const { dir, tokenFile, configFile } = setup();
    const s = settings(['--mode', 'direct', '--token-file', tokenFile, '--config', configFile, '--socket', '/s/p.sock', '--api-base', 'https://ghe.example/api/v3', '--state-dir', '/st']);
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
    expect(settings(['--mode', 'publish-pr', '--config', configFile], env).token?.reveal()).toBe(TOKEN);
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
    expect(refusal(['--mode', 'yolo'])).toContain('--mode "yolo" is not one of read-only, publish-pr, direct');
    expect(refusal(['--mode', 'publish-pr', '--config', configFile])).toContain('needs the GitHub token: pass --token-file PATH');
    expect(refusal(['--mode', 'publish-pr', '--token-file', tokenFile])).toContain('needs --config PATH');
    expect(refusal(['--token-file', tokenFile], { ZODEX_PUBLISHER_TOKEN: TOKEN })).toContain('give the token one way only');
    fs.writeFileSync(path.join(dir, 'empty.json'), '{}');
    expect(refusal(['--mode', 'direct', '--token-file', tokenFile, '--config', path.join(dir, 'empty.json')])).toContain('lists no allowedRemotes');
    fs.chmodSync(tokenFile, 0o644);
    expect(refusal(['--mode', 'direct', '--token-file', tokenFile, '--config', configFile])).toMatch(/^UNSAFE_TOKEN_FILE: .*chmod 600/);
    expect(refusal(['--nope'])).toContain("Unknown option '--nope'");
    fs.rmSync(dir, { recursive: true });
  });
});
