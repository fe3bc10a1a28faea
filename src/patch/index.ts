// apply_patch: parse the whole patch first, then plan and apply each file operation in patch
// order, each on its own: a failed operation is reported, the others still apply.
// Flow: parsePatch (throws PatchParseError, nothing touched) -> per op: planOp (reads, keeping each
// file's descriptor and stamp) -> runSteps (checks the stamps, writes) -> release -> PatchReport.

import { type FsPort, fsReader, nodeFs, runSteps } from './apply.js';
import { parsePatch } from './parse.js';
import { opName, planOp } from './plan.js';
import type { PatchReport } from './report.js';

export { parsePatch, PatchParseError } from './parse.js';
export { formatPatchReport, type PatchReport } from './report.js';
export type { FsPort } from './apply.js';

// `workdir` is absolute and an existing directory (checked by the caller); `fs` is for tests.
export async function applyPatch(patchText: string, workdir: string, fs: FsPort = nodeFs): Promise<PatchReport> {
  const ops = parsePatch(patchText);
  const report: PatchReport = { changed: [], failed: [] };
  for (const op of ops) {
    const reader = fsReader(fs); // holds the descriptors of what this operation read
    try {
      const plan = await planOp(op, workdir, reader);
      if ('code' in plan) {
        report.failed.push(plan);
        continue;
      }
      const outcome = await runSteps(plan.steps, fs, reader.stamps);
      if (outcome.completed > 0) report.changed.push(plan.change);
      if (outcome.error) report.failed.push({ op: opName(op), path: op.path, ...outcome.error });
    } finally {
      await reader.release();
    }
  }
  return report;
}
