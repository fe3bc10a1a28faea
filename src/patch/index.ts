// apply_patch: parse the whole patch first, then plan and apply each file operation in patch
// order, each on its own: a failed operation is reported, the others still apply.
// Flow: parsePatch (throws PatchParseError, nothing touched) -> per op: the bounds (port.ts) ->
// planOp (reads, keeping each file's descriptor and stamp) -> runSteps (checks the stamps,
// writes) -> release -> PatchReport.

import path from 'node:path';
import { fsReader, nodeFs, runSteps } from './apply.js';
import type { FsPort, PatchBoundary } from './port.js';
import { parsePatch } from './parse.js';
import { opName, planOp } from './plan.js';
import type { PatchReport } from './report.js';

export { parsePatch, PatchParseError } from './parse.js';
export { formatPatchReport, type PatchReport } from './report.js';
export { BoundsDenied, type BoundsCode, type FsPort, type PatchBoundary, type PatchGuard } from './port.js';

// `workdir` is absolute and an existing directory (checked by the caller); `fs` is for tests;
// `bounds`: what the write mode and the sandbox keep commands from, kept from the patch too.
export async function applyPatch(patchText: string, workdir: string, fs: FsPort = nodeFs, bounds?: PatchBoundary): Promise<PatchReport> {
  const ops = parsePatch(patchText);
  const report: PatchReport = { changed: [], failed: [] };
  const guard = bounds?.(workdir);
  const port = guard ? guard.wrap(fs) : fs;
  for (const op of ops) {
    const denied =
      guard &&
      [op.path, ...(op.kind === 'update' && op.movePath !== undefined ? [op.movePath] : [])]
        .map((file) => guard.check(guard.locate(path.resolve(workdir, file)), file))
        .find((refusal) => refusal !== undefined);
    if (denied) {
      report.failed.push({ op: opName(op), path: op.path, code: denied.code, reason: denied.message });
      continue;
    }
    const reader = fsReader(port); // holds the descriptors of what this operation read
    try {
      const plan = await planOp(op, workdir, reader, guard?.locate);
      if ('code' in plan) {
        report.failed.push(plan);
        continue;
      }
      const outcome = await runSteps(plan.steps, port, reader.stamps);
      if (outcome.completed > 0) report.changed.push(plan.change);
      if (outcome.error) report.failed.push({ op: opName(op), path: op.path, ...outcome.error });
    } finally {
      await reader.release();
    }
  }
  return report;
}
