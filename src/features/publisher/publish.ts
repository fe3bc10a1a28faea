// What the daemon does for publish-pr and push, once a request is valid.
// publish-pr: mode -> checkout (branch, HEAD = claimed commit, clean) -> remote allowed -> base
// (given, or the repository's default branch) -> branch is neither base nor protected -> copy
// the commit into staging -> push it, never forced -> open the PR. If the PR cannot be opened,
// the push is undone (the branch deleted, or put back where it was), so nothing stays half
// published. push (direct mode): the same checks, then a push to `target`.

import { randomBytes } from 'node:crypto';
import { checkBranchName, protectedPatternFor } from './branches.js';
import type { WriteMode } from '../../bounds/modes.js';
import type { PublisherConfig } from './config.js';
import { PublisherError } from './errors.js';
import { gitFailure, inspectCheckout, pushFailureKind, type CheckoutState, type GitRunner, type StagingRepo } from './git.js';
import type { GitHubClient } from './github.js';
import type { PublishPrRequest, PublishResult, PushRequest, PushResult } from './protocol.js';
import { displayUrl, formatRepository, resolveRemote, type ResolvedRemote } from './remotes.js';
import { gitConfigEnv, type Secret } from './token.js';

export interface PublishContext {
  mode: WriteMode;
  config: PublisherConfig;
  token: Secret | undefined;
  git: GitRunner;
  staging: StagingRepo;
  github: GitHubClient | undefined;
  redact: (text: string) => string;
}

// What is known so far about a request, for its history row, filled in as checks pass.
export interface PublicationFacts {
  repository: string;
  branch: string;
  commit: string;
  prUrl?: string;
}

const MAX_DIRTY_LISTED = 5;

function requireToken(context: PublishContext): Secret {
  if (!context.token) {
    throw new PublisherError('NO_TOKEN', 'the publisher was started without a write token; the operator must restart it with --token-file');
  }
  return context.token;
}

// The checks every write shares; returns the checkout and where it would be pushed.
async function checkCheckout(
  context: PublishContext,
  request: PublishPrRequest | PushRequest,
  facts: PublicationFacts,
): Promise<{ state: CheckoutState; remote: ResolvedRemote; remoteName: string }> {
  const remoteName = request.remote ?? context.config.defaultRemote;
  const state = await inspectCheckout(context.git, request.repoPath, remoteName);
  facts.repository = state.toplevel;
  if (state.branch !== request.branch) {
    throw new PublisherError('BRANCH_MISMATCH', `the checkout ${state.toplevel} is on branch ${state.branch}, not ${request.branch}; run zodex-agent again`);
  }
  if (state.head !== request.commit) {
    throw new PublisherError(
      'COMMIT_MISMATCH',
      `HEAD of ${state.toplevel} is ${state.head.slice(0, 12)}, not the claimed ${request.commit.slice(0, 12)}; run zodex-agent again from the checkout`,
    );
  }
  if (state.dirty.length > 0) {
    const listed = state.dirty
      .slice(0, MAX_DIRTY_LISTED)
      .map((line) => line.trim())
      .join(', ');
    const more = state.dirty.length > MAX_DIRTY_LISTED ? ` and ${state.dirty.length - MAX_DIRTY_LISTED} more` : '';
    throw new PublisherError(
      'DIRTY_WORKTREE',
      `${state.toplevel} has uncommitted changes or untracked files (${listed}${more}); commit them (or remove them / add them to .gitignore) first`,
    );
  }
  checkBranchName(state.branch);
  const remote = resolveRemote(remoteName, state.remoteUrl, state.toplevel, context.config);
  if (remote.repository) facts.repository = formatRepository(remote.repository);
  return { state, remote, remoteName };
}

function refuseProtected(branch: string, base: string, context: PublishContext): void {
  if (branch.toLowerCase() === base.toLowerCase()) {
    throw new PublisherError('BASE_BRANCH', `branch ${branch} is the pull request's base; create a topic branch (git switch -c my-change) and publish that`);
  }
  const pattern = protectedPatternFor(branch, context.config.protectedBranches);
  if (pattern) {
    throw new PublisherError(
      'PROTECTED_BRANCH',
      `branch ${branch} is protected (pattern ${pattern}); the publisher never pushes to it. Create a topic branch (git switch -c my-change) and publish that`,
    );
  }
}

// Copies the checkout's branch into staging and pushes it; returns what the remote branch held
// before (undefined: it did not exist). Nothing is published when this throws.
async function pushFromStaging(
  context: PublishContext,
  token: Secret,
  state: CheckoutState,
  remote: ResolvedRemote,
  target: string,
): Promise<{ previous: string | undefined; authEnv: Record<string, string> }> {
  const { staging, redact } = context;
  await staging.ensure();
  const ref = `refs/zodex/incoming/${randomBytes(8).toString('hex')}`;
  try {
    const copied = await staging.fetchBranch(state.toplevel, state.branch, ref);
    if (copied !== state.head) {
      throw new PublisherError(
        'COMMIT_MISMATCH',
        `branch ${state.branch} moved while it was being published (now ${copied.slice(0, 12)}); run zodex-agent again`,
      );
    }
    const authEnv = gitConfigEnv(remote.pushUrl, token, context.config.gitConfig);
    const where = displayUrl(remote.pushUrl);
    const before = await staging.remoteBranch(remote.pushUrl, target, authEnv);
    if (before.code !== 0) {
      throw new PublisherError('PUSH_FAILED', redact(`cannot reach ${where}: ${gitFailure(before)}; nothing was published`));
    }
    const pushed = await staging.push(remote.pushUrl, state.head, target, authEnv);
    if (pushed.code !== 0) {
      const kind = pushFailureKind(pushed);
      if (kind === 'non-fast-forward') {
        throw new PublisherError(
          'PUSH_REJECTED',
          redact(
            `${where} refused ${target}: ${gitFailure(pushed)}. The remote branch has commits yours lacks (the publisher never forces); publish under a new branch name, or rebase onto the remote branch first`,
          ),
        );
      }
      if (kind === 'refused') {
        throw new PublisherError('PUSH_REJECTED', redact(`${where} refused the push of ${target}: ${gitFailure(pushed)}; nothing was published`));
      }
      throw new PublisherError('PUSH_FAILED', redact(`pushing ${target} to ${where} failed: ${gitFailure(pushed)}; nothing was published`));
    }
    return { previous: before.sha, authEnv };
  } finally {
    await staging.dropRef(ref).catch(() => undefined);
  }
}

export async function publishPullRequest(context: PublishContext, request: PublishPrRequest, facts: PublicationFacts): Promise<PublishResult> {
  if (context.mode === 'read-only') {
    throw new PublisherError(
      'WRITE_MODE_READ_ONLY',
      'the publisher is in read-only mode: nothing is pushed and no pull request is opened. The operator chooses the write mode',
    );
  }
  const token = requireToken(context);
  const { state, remote } = await checkCheckout(context, request, facts);
  if (!remote.repository) {
    throw new PublisherError(
      'REMOTE_NOT_ALLOWED',
      `allowed remote ${displayUrl(remote.pushUrl)} names no GitHub repository, so no pull request can be opened there; the operator must add "repo": "owner/repo" to its allowedRemotes entry`,
    );
  }
  const github = context.github;
  if (!github) throw new PublisherError('NO_TOKEN', 'the publisher has no GitHub client (no token); the operator must restart it with --token-file');
  const base = request.base ?? (await github.defaultBranch(remote.repository));
  checkBranchName(base, 'base branch');
  refuseProtected(state.branch, base, context);

  const { previous, authEnv } = await pushFromStaging(context, token, state, remote, state.branch);
  let pr;
  try {
    pr = await github.createPullRequest(remote.repository, {
      title: request.title,
      head: state.branch,
      base,
      body: request.body ?? '',
      draft: request.draft ?? false,
    });
  } catch (error) {
    if (!(error instanceof PublisherError)) throw error;
    if (previous === state.head) {
      throw new PublisherError(error.code, `${error.message}; branch ${state.branch} was already on the remote at this commit and is left as it was`);
    }
    const undo = await context.staging.undoPush(remote.pushUrl, state.branch, state.head, previous, authEnv);
    if (undo.code !== 0) {
      throw new PublisherError(
        'ROLLBACK_FAILED',
        context.redact(
          `${error.message}; undoing the push failed too (${gitFailure(undo)}), so branch ${state.branch} is on ${displayUrl(remote.pushUrl)} at ${state.head.slice(0, 12)} without a pull request. ` +
            'Tell the operator; run zodex-agent github publish-pr again once GitHub answers',
        ),
      );
    }
    const undone = previous ? `branch ${state.branch} was put back to ${previous.slice(0, 12)}` : `branch ${state.branch} was deleted from the remote again`;
    throw new PublisherError(error.code, `${error.message}; the push was undone (${undone}), nothing is published. Try again later`);
  }
  facts.prUrl = pr.url;
  return {
    repository: formatRepository(remote.repository),
    branch: state.branch,
    base,
    commit: state.head,
    prUrl: pr.url,
    prNumber: pr.number,
    existingPr: pr.existing,
  };
}

export async function pushDirect(context: PublishContext, request: PushRequest, facts: PublicationFacts): Promise<PushResult> {
  if (context.mode === 'read-only') {
    throw new PublisherError('WRITE_MODE_READ_ONLY', 'the publisher is in read-only mode: nothing is pushed. The operator chooses the write mode');
  }
  if (context.mode !== 'direct') {
    throw new PublisherError(
      'WRITE_MODE_NO_DIRECT',
      `the publisher is in ${context.mode} mode, which does not allow direct pushes; use zodex-agent github publish-pr to open a pull request instead`,
    );
  }
  const token = requireToken(context);
  const { state, remote } = await checkCheckout(context, request, facts);
  const target = request.target ?? state.branch;
  checkBranchName(target, 'target branch');
  facts.branch = target;
  const { previous } = await pushFromStaging(context, token, state, remote, target);
  return {
    repository: remote.repository ? formatRepository(remote.repository) : displayUrl(remote.pushUrl),
    target,
    commit: state.head,
    previous: previous ?? null,
  };
}
