// apply_patch: check workdir, hand the patch to the engine in patch/, return Codex's texts.
// Malformed patches throw PatchParseError before any file is touched; a partial application
// is an error result that lists what changed and what failed.

import { applyPatch, formatPatchReport } from '../patch/index.js';
import { resolveWorkdir } from './workdir.js';

export interface ApplyPatchArgs {
  workdir: string;
  patch: string;
}

export async function applyPatchTool(args: ApplyPatchArgs): Promise<{ text: string; isError: boolean }> {
  const workdir = resolveWorkdir(args.workdir, undefined);
  const report = await applyPatch(args.patch, workdir);
  return formatPatchReport(report);
}

const OPERATION = /^\s*\*\*\* (Add|Delete|Update) File: (.*\S)\s*$/gm;

// A one-line description of a patch for the history: its file operations, e.g. "M src/a.ts, A b.md".
export function describePatch(patch: string): string {
  const operations = [...patch.matchAll(OPERATION)].map(([, kind, file]) => `${kind![0]} ${file}`);
  return operations.length > 0 ? operations.join(', ') : 'patch without file operations';
}
