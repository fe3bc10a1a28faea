import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPublisherConfig, parsePublisherConfig } from '../../../src/features/publisher/config.js';
import { tempDir } from './helpers.js';

describe('publisher config', () => {
  it('applies the defaults', () => {
    expect(parsePublisherConfig({})).toEqual({
      apiBase: 'https://api.github.com',
      gitBase: 'https://github.com',
      defaultRemote: 'origin',
      protectedBranches: ['main', 'master', 'release/*'],
      allowedRemotes: [],
      gitConfig: {},
    });
  });

  it('reads every field, --api-base winning over the file', () => {
    const config = parsePublisherConfig(
      {
        apiBase: 'https://ghe.example/api/v3/',
        defaultRemote: 'upstream',
        protectedBranches: [],
        allowedRemotes: [{ repo: 'a/b' }, { url: '/srv/x.git', repo: 'a/x' }],
        gitConfig: { 'http.sslCAInfo': '/etc/ca.pem' },
      },
      'test',
    );
    expect(config.apiBase).toBe('https://ghe.example/api/v3');
    expect(config.gitBase).toBe('https://ghe.example');
    expect(config.defaultRemote).toBe('upstream');
    expect(config.protectedBranches).toEqual([]);
    expect(config.allowedRemotes).toEqual([
      { kind: 'pattern', pattern: 'a/b' },
      { kind: 'url', url: '/srv/x.git', repo: 'a/x' },
    ]);
    expect(parsePublisherConfig({ apiBase: 'https://x.example' }, 'test', 'http://127.0.0.1:9').apiBase).toBe('http://127.0.0.1:9');
  });

  it('says which field is wrong and how', () => {
    expect(() => parsePublisherConfig({ allowedRemotes: [{ repo: 'no-slash' }] }, 'cfg.json')).toThrow(/^cfg\.json: allowedRemotes\.0/);
    expect(() => parsePublisherConfig({ apiBase: 'ftp://x' }, 'cfg.json')).toThrow(/apiBase: must be an http\(s\) URL/);
    expect(() => parsePublisherConfig({ allowedRemote: [] }, 'cfg.json')).toThrow(/allowedRemote/);
    expect(() => parsePublisherConfig({}, 'cfg.json', 'not a url')).toThrow(/--api-base "not a url" must be an http\(s\) URL/);
    expect(() => parsePublisherConfig({}, 'cfg.json', 'http://ghe.example/api/v3')).toThrow(/must use https \(plain http would expose the token\)/);
    expect(() => parsePublisherConfig({ allowedRemotes: [{ url: 'http://git.example/a/b.git', repo: 'a/b' }] }, 'cfg.json')).toThrow(
      /allowedRemotes\.0.*must use https/,
    );
    expect(parsePublisherConfig({ apiBase: 'http://127.0.0.1:8080', allowedRemotes: [{ url: 'http://localhost:1/a.git' }] }).apiBase).toBe(
      'http://127.0.0.1:8080',
    );
  });

  it('loads a file, with clear errors for a missing file and bad JSON', () => {
    const dir = tempDir();
    const file = path.join(dir, 'p.json');
    fs.writeFileSync(file, '{"allowedRemotes":[{"repo":"a/b"}]}');
    expect(loadPublisherConfig(file).allowedRemotes).toHaveLength(1);
    fs.writeFileSync(file, '{oops');
    expect(() => loadPublisherConfig(file)).toThrow(/is not valid JSON/);
    expect(() => loadPublisherConfig(path.join(dir, 'missing.json'))).toThrow(/cannot be read \(ENOENT\)/);
    fs.rmSync(dir, { recursive: true });
  });
});
