// The texts a model reads after apply_patch: Codex's success summary, or what changed plus each
// failed operation with its reason and how to fix it.
// Flow: index.ts fills a PatchReport while applying -> formatPatchReport -> { text, isError }.

import { clipText } from '../errors.js';
import type { ChangedFile, FailureCode, OpFailure } from './plan.js';

export interface PatchReport {
  /** In patch order; a move is 'M' of its destination, with movedFrom set. Shown as Codex lists
   * them: every A, then every M, then every D, each group in patch order. */
  changed: ChangedFile[];
  failed: OpFailure[];
}

// A failure's reason may quote ten context lines (each clipped) and a system error naming a
// path: past this many characters it is cut, so no input makes the report unbounded.
const REASON_MAX_CHARS = 4_000;

const FIX: Record<FailureCode, string> = {
  CONTEXT_NOT_FOUND: 're-read the file and regenerate the hunk from its current content.',
  AMBIGUOUS_CONTEXT: "add context lines, or an '@@ <line>' header naming the enclosing class or function, until the chunk matches one place.",
  OVERLAPPING_CHUNKS: 'merge the overlapping chunks into one, or list the chunks in file order.',
  FILE_NOT_FOUND: "check the path; to create a file use '*** Add File:'.",
  IS_A_DIRECTORY: 'apply_patch works on files; use exec_command for directories.',
  NOT_A_FILE: 'apply_patch works on regular files only; use exec_command for this path.',
  NOT_UTF8: 'apply_patch edits UTF-8 text; use exec_command for this file.',
  READ_FAILED: 'check that the path and its folders are readable, then retry this operation.',
  WRITE_FAILED: 'check permissions and free space in the folder, then retry this operation.',
  DELETE_FAILED: 'check the permissions of the folder, then remove the file with exec_command or retry.',
  FILE_CHANGED_DURING_PATCH:
    're-read the file (another process is writing it), then retry this operation, when that process is done if it keeps the file open.',
  SANDBOX_WRITE_DENIED: 'write inside the workdir, /tmp or a writable root instead; the operator sets the sandbox (zodexd --sandbox, --writable-root).',
  CREDENTIAL_STORE_DENIED:
    'leave credentials alone: in this write mode nothing an agent runs may read or change them (the operator chooses zodexd --write-mode).',
};

const KIND_ORDER = { A: 0, M: 1, D: 2 } as const;

export function formatPatchReport(report: PatchReport): { text: string; isError: boolean } {
  const ordered = report.changed.map((change, at) => ({ change, at })).sort((a, b) => KIND_ORDER[a.change.kind] - KIND_ORDER[b.change.kind] || a.at - b.at);
  // Codex's success text names a move by its destination only; a partial failure also says where from.
  if (report.failed.length === 0) {
    return { text: `Success. Updated the following files:\n${ordered.map(({ change }) => `${change.kind} ${change.path}\n`).join('')}`, isError: false };
  }
  const changed = ordered.map(({ change }) => `${change.kind} ${change.path}${change.movedFrom === undefined ? '' : ` (moved from ${change.movedFrom})`}\n`);

  const summary = changed.length === 0 ? 'No files were changed.\n' : `These operations were applied (they are not rolled back):\n${changed.join('')}`;
  const failures = report.failed.map(
    (failure) => `- ${failure.op} ${clipText(failure.path)} [${failure.code}]: ${indent(clipText(failure.reason, REASON_MAX_CHARS))}\n  Fix: ${fix(failure)}\n`,
  );
  const retry = 'Retry only the failed operations, after reading the current content of their files.\n';
  return { text: `${summary}Failed (${report.failed.length}):\n${failures.join('')}${retry}`, isError: true };
}

function fix(failure: OpFailure): string {
  if (failure.code === 'FILE_NOT_FOUND' && failure.op === 'delete') return 'check the path; if the file is already gone, drop this operation.';
  return FIX[failure.code];
}

function indent(text: string): string {
  return text.replace(/\n/g, '\n  ');
}
