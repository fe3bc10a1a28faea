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
