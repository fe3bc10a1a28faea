// apply_patch: its input schema and description, and the handler: check workdir, hand the patch
// to the engine in patch/, return Codex's texts. Malformed patches throw PatchParseError before any
// file is touched; a partial application is an error result that lists what changed and what failed.

import { z } from 'zod';
import { applyPatch, formatPatchReport, type PatchBoundary } from '../patch/index.js';
import { typed, workdirError } from './schemas.js';
import { rejectedCall, tool } from './tool.js';
import { resolveWorkdir } from './workdir.js';

export function applyPatchInput() {
  return {
    workdir: z
      .string(workdirError())
      .describe('Absolute path of an existing directory. Relative paths in the patch resolve against it; absolute paths are used as they are.'),
    patch: z
      .string(typed('patch', 'a string', 'pass the patch text, from "*** Begin Patch" to "*** End Patch"'))
      .describe('The patch, from "*** Begin Patch" to "*** End Patch".'),
  };
}

export const APPLY_PATCH_DESCRIPTION = [
  'Apply a Codex-style patch to files.',
  'Format: "*** Begin Patch", then for each file "*** Add File: PATH" (lines prefixed with +), "*** Delete File: PATH",',
  'or "*** Update File: PATH" (optionally "*** Move to: NEW_PATH") followed by chunks that start with "@@" or "@@ <line naming the',
  'function or class>" and hold context lines (prefixed with a space), removed lines (-) and added lines (+); "*** End of File" anchors',
  'a chunk at the end of the file; then "*** End Patch". Give about 3 lines of context around each change;',
  'a chunk of only added lines goes at the end of the file (as in Codex), so put a context line before an insertion.',
  'Each file operation applies atomically and independently: if some fail, the others are still applied and not rolled back;',
  'the error lists the files changed and each failed operation with its reason. Retry only the failed operations after re-reading those files.',
  'Context must match one place only; ambiguous context is an error, never a guess. Relative paths resolve against workdir.',
  'A file another process writes (or holds open for writing) while the patch applies fails that operation with FILE_CHANGED_DURING_PATCH and is left as that process wrote it.',
].join(' ');

export interface ApplyPatchArgs {
  workdir: string;
  patch: string;
}

export async function applyPatchFiles(args: ApplyPatchArgs, bounds?: PatchBoundary): Promise<{ text: string; isError: boolean }> {
  const workdir = resolveWorkdir(args.workdir, undefined);
  const report = await applyPatch(args.patch, workdir, undefined, bounds);
  return formatPatchReport(report);
}

const OPERATION = /^\s*\*\*\* (Add|Delete|Update) File: (.*\S)\s*$/gm;

// A one-line description of a patch for the history: its file operations, e.g. "M src/a.ts, A b.md".
export function describePatch(patch: string): string {
  const operations = [...patch.matchAll(OPERATION)].map(([, kind, file]) => `${kind![0]} ${file}`);
  return operations.length > 0 ? operations.join(', ') : 'patch without file operations';
}

export const applyPatchTool = tool({
  name: 'apply_patch',
  title: 'Apply a Codex-style patch',
  description: () => APPLY_PATCH_DESCRIPTION,
  input: applyPatchInput,
  record: (args) => ({ tool: 'apply_patch', workdir: args.workdir, summary: describePatch(args.patch) }),
  rejected: (raw) => rejectedCall('apply_patch', raw, typeof raw.patch === 'string' ? describePatch(raw.patch) : '(no patch)'),
  run: async (args, ctx) => ({ kind: 'text', ...(await applyPatchFiles(args, ctx.patches)) }),
});
