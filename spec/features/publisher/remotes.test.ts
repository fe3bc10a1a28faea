import { describe, expect, it } from 'vitest';
import { parsePublisherConfig } from '../../../src/features/publisher/config.js';
import { PublisherError } from '../../../src/features/publisher/errors.js';
import { displayUrl, normalizeRemoteUrl, parseGitHubUrl, resolveRemote } from '../../../src/features/publisher/remotes.js';

describe('parseGitHubUrl', () => {
  it('reads owner/repo from the URL forms git uses for GitHub', () => {
    for (const url of [
      'https://github.com/acme/widgets.git',
      'https://github.com/acme/widgets',
      'https://github.com/acme/widgets/',
      'https://someone@github.com/acme/widgets.git',
      'git@github.com:acme/widgets.git',
      'git@github.com:acme/widgets',
      'ssh://git@github.com/acme/widgets.git',
      'ssh://git@github.com:22/acme/widgets.git',
      'https://GitHub.com/acme/widgets.git',
    ]) {
      expect(parseGitHubUrl(url, 'github.com'), url).toEqual({ owner: 'acme', repo: 'widgets' });
    }
    expect(parseGitHubUrl('https://github.com/acme/my.repo.git', 'github.com')).toEqual({ owner: 'acme', repo: 'my.repo' });
  });

  it('rejects other hosts, deeper paths, local paths and other schemes', () => {
    for (const url of [
      'https://gitlab.com/acme/widgets.git',
      'https://github.com.evil.example/acme/widgets.git',
      'https://github.com/acme/widgets/extra',
      'https://github.com/acme',
      '/srv/git/acme/widgets.git',
      'file:///srv/acme/widgets.git',
      'ftp://github.com/acme/widgets.git',
      'git@evil.example:acme/widgets.git',
    ]) {
      expect(parseGitHubUrl(url, 'github.com'), url).toBeUndefined();
    }
  });
});

describe('normalizeRemoteUrl', () => {
  it('makes local paths absolute and file:// URLs paths, and leaves others alone', () => {
    expect(normalizeRemoteUrl('../remote.git/', '/w/checkout')).toBe('/w/remote.git');
    expect(normalizeRemoteUrl('file:///srv/x.git', '/w')).toBe('/srv/x.git');
    expect(normalizeRemoteUrl('https://github.com/a/b.git/', '/w')).toBe('https://github.com/a/b.git');
    expect(normalizeRemoteUrl('git@github.com:a/b.git', '/w')).toBe('git@github.com:a/b.git');
  });

  it('drops user:password@ from URLs shown in messages', () => {
    expect(displayUrl('https://user:secret@github.com/a/b.git')).toBe('https://github.com/a/b.git');
  });
});

describe('resolveRemote', () => {
  const config = parsePublisherConfig({
    allowedRemotes: [
      { repo: 'acme/widgets' },
      { repo: 'tools-*/*' },
      { url: '/srv/git/local.git', repo: 'acme/local' },
      { url: 'https://ghe.example/x/y.git' },
    ],
  });

  it('maps an owner/repo entry to the HTTPS push URL on gitBase, whatever form the checkout uses', () => {
    for (const url of ['git@github.com:acme/widgets.git', 'https://github.com/ACME/Widgets']) {
      const resolved = resolveRemote('origin', url, '/w', config);
      expect(resolved.pushUrl.toLowerCase()).toBe('https://github.com/acme/widgets.git');
      expect(resolved.repository?.repo.toLowerCase()).toBe('widgets');
    }
    expect(resolveRemote('origin', 'git@github.com:tools-x/anything.git', '/w', config).pushUrl).toBe('https://github.com/tools-x/anything.git');
  });

  it('matches url entries exactly (paths after normalizing) and pushes to the entry as written', () => {
    expect(resolveRemote('origin', 'file:///srv/git/local.git', '/w', config)).toEqual({
      remoteUrl: 'file:///srv/git/local.git',
      pushUrl: '/srv/git/local.git',
      repository: { owner: 'acme', repo: 'local' },
    });
    expect(resolveRemote('origin', '../../srv/git/local.git', '/w/c', config).pushUrl).toBe('/srv/git/local.git');
    expect(resolveRemote('origin', 'https://ghe.example/x/y.git', '/w', config).repository).toBeUndefined();
  });

  it('refuses everything else, naming the allowed list', () => {
    for (const url of ['git@github.com:acme/other.git', 'https://github.com/tools/x.git', '/srv/git/local2.git', 'https://evil.example/acme/widgets.git']) {
      try {
        resolveRemote('origin', url, '/w', config);
        throw new Error(`accepted ${url}`);
      } catch (error) {
        expect(error).toBeInstanceOf(PublisherError);
        expect((error as PublisherError).code).toBe('REMOTE_NOT_ALLOWED');
        expect((error as Error).message).toContain('acme/widgets, tools-*/*, /srv/git/local.git (acme/local)');
      }
    }
  });

  it('uses the GitHub Enterprise host for owner/repo entries', () => {
    const ghe = parsePublisherConfig({ allowedRemotes: [{ repo: 'acme/*' }] }, 'test', 'https://ghe.example.com/api/v3');
    expect(ghe.gitBase).toBe('https://ghe.example.com');
    expect(resolveRemote('origin', 'git@ghe.example.com:acme/app.git', '/w', ghe).pushUrl).toBe('https://ghe.example.com/acme/app.git');
    expect(() => resolveRemote('origin', 'git@github.com:acme/app.git', '/w', ghe)).toThrow(/not in the publisher's allowed remotes/);
  });
});
