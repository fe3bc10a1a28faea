// The few GitHub REST calls the publisher makes: read a repository (its default branch), open a
// pull request, and find the open one for a head branch. Errors are PublisherErrors whose text
// has passed through the redactor: GITHUB_UNREACHABLE (no HTTP answer) or GITHUB_API_ERROR
// (an answer other than the one expected, with GitHub's own message).

import { z } from 'zod';
import { PublisherError } from './errors.js';
import type { RepositoryRef } from './remotes.js';
import type { Secret } from './token.js';

export const GITHUB_TIMEOUT_MS = 30_000;
const API_VERSION = '2022-11-28';
const MAX_MESSAGE_CHARS = 300;

export interface PullRequestInput {
  title: string;
  head: string;
  base: string;
  body: string;
  draft: boolean;
}

export interface PullRequest {
  url: string;
  number: number;
}

const repositorySchema = z.looseObject({ default_branch: z.string().min(1) });
const pullSchema = z.looseObject({ html_url: z.string().min(1), number: z.number().int() });
const errorSchema = z.looseObject({
  message: z.string().optional(),
  errors: z.array(z.union([z.looseObject({ message: z.string().optional(), code: z.string().optional() }), z.string()])).optional(),
});

export interface GitHubClientOptions {
  apiBase: string;
  token: Secret;
  redact: (text: string) => string;
  userAgent: string;
  timeoutMs?: number;
}

export class GitHubClient {
  constructor(private readonly options: GitHubClientOptions) {}

  private url(ref: RepositoryRef, suffix: string): string {
    return `${this.options.apiBase}/repos/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}${suffix}`;
  }

  private async call(method: 'GET' | 'POST', url: string, what: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const { redact } = this.options;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? GITHUB_TIMEOUT_MS),
        headers: {
          Accept: 'application/vnd.github+json',
          Authorization: `Bearer ${this.options.token.reveal()}`,
          'X-GitHub-Api-Version': API_VERSION,
          'User-Agent': this.options.userAgent,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new PublisherError('GITHUB_UNREACHABLE', redact(`${what}: no answer from ${this.options.apiBase} (${describeFetchError(error)})`));
    }
    const text = await response.text().catch(() => '');
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, json: json ?? { message: text.slice(0, MAX_MESSAGE_CHARS) } };
  }

  private failure(what: string, status: number, json: unknown): PublisherError {
    const parsed = errorSchema.safeParse(json);
    const parts: string[] = [];
    if (parsed.success) {
      if (parsed.data.message) parts.push(parsed.data.message);
      for (const entry of parsed.data.errors ?? []) {
        const message = typeof entry === 'string' ? entry : (entry.message ?? entry.code);
        if (message) parts.push(message);
      }
    }
    const detail = parts.join('; ').slice(0, MAX_MESSAGE_CHARS) || 'no message';
    const hint =
      status === 401
        ? ' (the publisher token was not accepted; the operator must renew it)'
        : status === 403 || status === 404
          ? ' (the publisher token may lack access to this repository)'
          : '';
    return new PublisherError('GITHUB_API_ERROR', this.options.redact(`${what}: GitHub answered HTTP ${status}: ${detail}${hint}`));
  }

  async defaultBranch(ref: RepositoryRef): Promise<string> {
    const what = `reading ${ref.owner}/${ref.repo}`;
    const { status, json } = await this.call('GET', this.url(ref, ''), what);
    const parsed = repositorySchema.safeParse(json);
    if (status !== 200 || !parsed.success) throw this.failure(what, status, json);
    return parsed.data.default_branch;
  }

  // Opens the PR; `existing: true` when GitHub says one is already open for this head (the push
  // then updated it).
  async createPullRequest(ref: RepositoryRef, input: PullRequestInput): Promise<PullRequest & { existing: boolean }> {
    const what = `opening a pull request on ${ref.owner}/${ref.repo}`;
    const { status, json } = await this.call('POST', this.url(ref, '/pulls'), what, input);
    const parsed = pullSchema.safeParse(json);
    if (status === 201 && parsed.success) return { url: parsed.data.html_url, number: parsed.data.number, existing: false };
    if (status === 422 && /already exists/i.test(JSON.stringify(json))) {
      const open = await this.findOpenPullRequest(ref, input.head);
      if (open) return { ...open, existing: true };
    }
    throw this.failure(what, status, json);
  }

  async findOpenPullRequest(ref: RepositoryRef, head: string): Promise<PullRequest | undefined> {
    const what = `looking up the open pull request for ${head}`;
    const query = `?state=open&head=${encodeURIComponent(`${ref.owner}:${head}`)}`;
    const { status, json } = await this.call('GET', this.url(ref, `/pulls${query}`), what);
    if (status !== 200 || !Array.isArray(json)) throw this.failure(what, status, json);
    const first = pullSchema.safeParse(json[0]);
    return first.success ? { url: first.data.html_url, number: first.data.number } : undefined;
  }
}

// fetch() says only "fetch failed"; the cause says why (ECONNREFUSED, ENOTFOUND, a timeout).
function describeFetchError(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'timed out';
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause && typeof cause === 'object') {
      const code = (cause as { code?: unknown }).code;
      const message = (cause as { message?: unknown }).message;
      if (typeof code === 'string') return code;
      if (typeof message === 'string') return message;
    }
    return error.message;
  }
  return String(error);
}
