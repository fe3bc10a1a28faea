// Which remotes the publisher may write to, and where exactly it pushes. Pure.
// Flow: the checkout's `remote.<name>.url` -> resolveRemote(url, checkoutDir, config) ->
// { pushUrl, repository } or REMOTE_NOT_ALLOWED. The daemon pushes to pushUrl from its own
// staging repository, never through the checkout's remote (whose config the agent controls).

import path from 'node:path';
import type { AllowedRemote, PublisherConfig } from './config.js';
import { PublisherError } from './errors.js';

export interface RepositoryRef {
  owner: string;
  repo: string;
}

export interface ResolvedRemote {
  // The remote URL as the checkout has it (shown in messages and history).
  remoteUrl: string;
  // Where the daemon pushes: the allowed `url` entry as written, or gitBase/owner/repo.git.
  pushUrl: string;
  // For the REST API; undefined for a `url` entry without `repo` (direct pushes only).
  repository: RepositoryRef | undefined;
}

export function formatRepository(ref: RepositoryRef): string {
  return `${ref.owner}/${ref.repo}`;
}

// owner/repo of a GitHub-style URL on `host`: https://HOST/o/r(.git), ssh://git@HOST(:port)/o/r(.git),
// git@HOST:o/r(.git). Anything else (other hosts, deeper paths, local paths) -> undefined.
export function parseGitHubUrl(url: string, host: string): RepositoryRef | undefined {
  const wanted = host.toLowerCase();
  let hostPart: string | undefined;
  let pathPart: string | undefined;
  const scp = /^(?:[A-Za-z0-9._-]+@)?([^/:@\s]+):(?!\/\/)(.+)$/.exec(url);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (!['https:', 'http:', 'ssh:', 'git+ssh:', 'ssh+git:'].includes(parsed.protocol)) return undefined;
    hostPart = parsed.hostname;
    pathPart = decodeURIComponent(parsed.pathname);
  } else if (scp && !url.startsWith('/')) {
    hostPart = scp[1];
    pathPart = scp[2];
  } else {
    return undefined;
  }
  if (!hostPart || hostPart.toLowerCase() !== wanted || pathPart === undefined) return undefined;
  const match = /^\/?([A-Za-z0-9][A-Za-z0-9._-]*)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(pathPart);
  if (!match || !match[1] || !match[2]) return undefined;
  return { owner: match[1], repo: match[2] };
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  return new RegExp(`^${escaped}$`, 'i');
}

// A `url` entry's URL, or a checkout's remote URL, in a form that compares equal for the same
// place: local paths and file:// URLs become absolute paths (relative ones against `base`),
// trailing slashes go; other URLs compare as written.
export function normalizeRemoteUrl(url: string, base: string): string {
  let value = url.trim();
  if (value.startsWith('file://')) {
    try {
      value = decodeURIComponent(new URL(value).pathname);
    } catch {
      return value;
    }
  }
  const isUrl = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value);
  const isScp = !value.startsWith('/') && !value.startsWith('.') && /^[^/]+:/.test(value);
  if (!isUrl && !isScp) return path.resolve(base, value).replace(/\/+$/, '') || '/';
  return value.replace(/\/+$/, '');
}

function matchEntry(entry: AllowedRemote, remoteUrl: string, checkoutDir: string, gitBase: string): ResolvedRemote | undefined {
  const host = new URL(gitBase).hostname;
  if (entry.kind === 'url') {
    if (normalizeRemoteUrl(entry.url, '/') !== normalizeRemoteUrl(remoteUrl, checkoutDir)) return undefined;
    const repository = entry.repo ? parseOwnerRepo(entry.repo) : parseGitHubUrl(entry.url, host);
    return { remoteUrl, pushUrl: entry.url, repository };
  }
  const ref = parseGitHubUrl(remoteUrl, host);
  if (!ref || !globToRegExp(entry.pattern).test(formatRepository(ref))) return undefined;
  return { remoteUrl, pushUrl: `${gitBase}/${ref.owner}/${ref.repo}.git`, repository: ref };
}

function parseOwnerRepo(value: string): RepositoryRef {
  const [owner = '', repo = ''] = value.split('/');
  return { owner, repo };
}

// A URL fit for messages: any user:password@ part is dropped.
export function displayUrl(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@\s]*@/, '$1');
}

export function describeAllowedRemote(entry: AllowedRemote): string {
  if (entry.kind === 'pattern') return entry.pattern;
  return entry.repo ? `${entry.url} (${entry.repo})` : entry.url;
}

// The first allowed entry the remote URL matches, or REMOTE_NOT_ALLOWED naming the list.
export function resolveRemote(remoteName: string, remoteUrl: string, checkoutDir: string, config: PublisherConfig): ResolvedRemote {
  for (const entry of config.allowedRemotes) {
    const resolved = matchEntry(entry, remoteUrl, checkoutDir, config.gitBase);
    if (resolved) return resolved;
  }
  const allowed = config.allowedRemotes.map(describeAllowedRemote);
  throw new PublisherError(
    'REMOTE_NOT_ALLOWED',
    `remote ${remoteName} (${displayUrl(remoteUrl)}) is not in the publisher's allowed remotes (${allowed.length ? allowed.join(', ') : 'none configured'}); ` +
      'push from a clone of an allowed repository, or ask the operator to add it to allowedRemotes',
  );
}
