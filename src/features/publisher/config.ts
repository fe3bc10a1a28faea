// The operator's publisher config: a JSON file validated with zod (the write mode is bounds/modes.ts').
// Flow: loadPublisherConfig(file) -> parsePublisherConfig(json) -> PublisherConfig with every
// default applied here, in one place (apiBase, gitBase, defaultRemote, protectedBranches).
//
// {
//   "apiBase": "https://api.github.com",          // GitHub Enterprise: "https://HOST/api/v3"
//   "gitBase": "https://github.com",              // where `owner/repo` entries are pushed over HTTPS
//   "defaultRemote": "origin",
//   "protectedBranches": ["main", "master", "release/*"],
//   "allowedRemotes": [
//     { "repo": "acme/widgets" },                 // any GitHub-style URL of acme/widgets on gitBase's host
//     { "repo": "acme/*" },                       // any repository of acme
//     { "url": "/srv/git/tools.git", "repo": "acme/tools" }  // exactly this URL or path; pushed as is
//   ],
//   "gitConfig": { "http.sslCAInfo": "/etc/ssl/ghe.pem" }     // extra git settings for pushes
// }

import fs from 'node:fs';
import { z } from 'zod';
import { PublisherError } from './errors.js';

export const DEFAULT_API_BASE = 'https://api.github.com';
export const DEFAULT_GIT_BASE = 'https://github.com';
export const DEFAULT_REMOTE = 'origin';
export const DEFAULT_PROTECTED_BRANCHES: readonly string[] = ['main', 'master', 'release/*'];

const OWNER_REPO_PATTERN = /^[A-Za-z0-9*][A-Za-z0-9._*-]*\/[A-Za-z0-9._*-]+$/;
const OWNER_REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9._-]+$/;

// The token travels to these URLs, so plain http is only for this machine (tests, a local proxy).
export function isPlainHttpOffLoopback(value: string): boolean {
  if (!/^http:\/\//i.test(value)) return false;
  try {
    const host = new URL(value).hostname.replace(/^\[(.*)\]$/, '$1');
    return !(host === 'localhost' || host === '::1' || /^127\./.test(host));
  } catch {
    return true;
  }
}

const PLAIN_HTTP = 'must use https (plain http would expose the token) unless the host is loopback';

const httpUrl = z
  .string()
  .refine((value) => /^https?:\/\/[^/\s]+/.test(value), { message: 'must be an http(s) URL, e.g. https://api.github.com' })
  .refine((value) => !isPlainHttpOffLoopback(value), { message: PLAIN_HTTP })
  .transform((value) => value.replace(/\/+$/, ''));

const allowedRemoteSchema = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .refine((value) => !isPlainHttpOffLoopback(value), { message: PLAIN_HTTP })
      .optional(),
    repo: z.string().optional(),
  })
  .superRefine((entry, context) => {
    if (entry.url === undefined && entry.repo === undefined) {
      context.addIssue({ code: 'custom', message: 'give "repo": "owner/repo" (a pattern), or "url" (with "repo" for a non-GitHub URL)' });
    } else if (entry.url === undefined && !OWNER_REPO_PATTERN.test(entry.repo ?? '')) {
      context.addIssue({ code: 'custom', path: ['repo'], message: 'must be owner/repo; `*` stands for any run of characters, e.g. acme/*' });
    } else if (entry.url !== undefined && entry.repo !== undefined && !OWNER_REPO.test(entry.repo)) {
      context.addIssue({ code: 'custom', path: ['repo'], message: 'must be owner/repo without wildcards when url is given' });
    }
  });

const configSchema = z.strictObject({
  apiBase: httpUrl.optional(),
  gitBase: httpUrl.optional(),
  defaultRemote: z
    .string()
    .regex(/^[A-Za-z0-9._-]+$/, 'must be a git remote name such as origin')
    .optional(),
  protectedBranches: z.array(z.string().min(1)).optional(),
  allowedRemotes: z.array(allowedRemoteSchema).default([]),
  gitConfig: z.record(z.string().regex(/^[A-Za-z0-9.-]+\.[A-Za-z0-9-]+$/, 'keys are git config names such as http.sslCAInfo'), z.string()).optional(),
});

export type AllowedRemote = { kind: 'url'; url: string; repo: string | undefined } | { kind: 'pattern'; pattern: string };

export interface PublisherConfig {
  apiBase: string;
  gitBase: string;
  defaultRemote: string;
  protectedBranches: string[];
  allowedRemotes: AllowedRemote[];
  gitConfig: Record<string, string>;
}

// GitHub's git host for an API base: api.github.com -> github.com; https://HOST/api/v3 -> https://HOST.
export function gitBaseFor(apiBase: string): string {
  const url = new URL(apiBase);
  if (url.hostname === 'api.github.com') return DEFAULT_GIT_BASE;
  return url.origin;
}

function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`).join('; ');
}

// json -> PublisherConfig; `source` names the file in messages. apiBaseOverride is --api-base.
export function parsePublisherConfig(json: unknown, source = 'publisher config', apiBaseOverride?: string): PublisherConfig {
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) throw new PublisherError('BAD_CONFIG', `${source}: ${formatIssues(parsed.error)}`);
  const raw = parsed.data;
  let apiBase = raw.apiBase ?? DEFAULT_API_BASE;
  if (apiBaseOverride !== undefined) {
    const checked = httpUrl.safeParse(apiBaseOverride);
    if (!checked.success) {
      throw new PublisherError(
        'BAD_CONFIG',
        `--api-base ${JSON.stringify(apiBaseOverride)} ${checked.error.issues[0]?.message ?? 'is not valid'}; e.g. https://ghe.example.com/api/v3`,
      );
    }
    apiBase = checked.data;
  }
  const allowedRemotes: AllowedRemote[] = raw.allowedRemotes.map((entry) =>
    entry.url !== undefined ? { kind: 'url', url: entry.url, repo: entry.repo } : { kind: 'pattern', pattern: entry.repo ?? '' },
  );
  return {
    apiBase,
    gitBase: raw.gitBase ?? gitBaseFor(apiBase),
    defaultRemote: raw.defaultRemote ?? DEFAULT_REMOTE,
    protectedBranches: raw.protectedBranches ?? [...DEFAULT_PROTECTED_BRANCHES],
    allowedRemotes,
    gitConfig: raw.gitConfig ?? {},
  };
}

export function loadPublisherConfig(file: string, apiBaseOverride?: string): PublisherConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new PublisherError('BAD_CONFIG', `--config ${file} cannot be read (${(error as NodeJS.ErrnoException).code}); check the path`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PublisherError('BAD_CONFIG', `--config ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parsePublisherConfig(json, `--config ${file}`, apiBaseOverride);
}
