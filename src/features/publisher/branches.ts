// Branch rules, pure: which names are well-formed, and which the publisher never writes to.
// Protected patterns are a deny list, so they err on the side of protecting: `*` matches any
// run of characters including `/` (`release/*` covers release/1.2/hotfix too), and names
// compare without regard to case.

import { PublisherError } from './errors.js';

// A subset of git's check-ref-format rules, narrowed to characters that cannot change the
// meaning of a refspec (`:`, `+`, `^`, `~`, spaces, `@{` are all out).
export function checkBranchName(name: string, what = 'branch'): void {
  const bad =
    !/^[A-Za-z0-9._\/-]+$/.test(name) ||
    name.startsWith('-') ||
    name.startsWith('/') ||
    name.endsWith('/') ||
    name.endsWith('.') ||
    name.endsWith('.lock') ||
    name.includes('..') ||
    name.includes('//') ||
    name.split('/').some((part) => part.startsWith('.')) ||
    name === 'HEAD';
  if (bad) {
    throw new PublisherError(
      'INVALID_BRANCH_NAME',
      `${what} name ${JSON.stringify(name)} is not one the publisher pushes; use letters, digits and . _ - / (e.g. zodex/fix-login)`,
    );
  }
}

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

// The protected pattern `branch` matches, if any.
export function protectedPatternFor(branch: string, patterns: readonly string[]): string | undefined {
  return patterns.find((pattern) => patternToRegExp(pattern).test(branch));
}
