// Workload 6: the same change (1,000 one-line edits with 3 lines of context on a 100,000-line
// file, bench/patch-fixture.mjs) applied through each server, beside `git apply` of the same
// change as a unified diff (the reference line) and zodex's patch engine called in-process.
// Each run starts from a freshly written file (untimed) and its result is checked byte for byte.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib.mjs';
import { updateFixture } from '../patch-fixture.mjs';
import { gitApply } from './floor.mjs';
import { interleave, pairedRatios, row, summarize, timed } from './harness.mjs';
import { closeParticipants, openParticipants, rowInfo } from './participants.mjs';

const EDIT_BLOCK_SAMPLE = 5; // edit_block hunks timed per round (1,000 calls would take minutes)

export const workload = { id: 'w6-apply-patch', number: 6, title: 'apply_patch beside git apply' };

export async function run({ targets, scratch, quick }) {
  const rounds = quick ? 2 : 7;
  const fixture = updateFixture();
  const { applyPatch } = await import(pathToFileURL(path.join(ROOT, 'dist/patch/index.js')).href);
  const base = path.join(scratch.root, 'w6');
  const participants = await openParticipants(targets, 'w6', scratch);
  const git = { id: 'floor', label: 'git apply, no MCP (reference)', kind: 'floor' };
  const engine = { id: 'engine', label: 'zodex engine in-process, no MCP', kind: 'reference' };
  const all = [...participants, git, engine];
  const dirOf = new Map(all.map((p) => [p, path.join(base, p.id)]));
  for (const dir of dirOf.values()) fs.mkdirSync(dir, { recursive: true });
  const diffFile = path.join(base, 'change.diff');
  fs.writeFileSync(diffFile, fixture.unifiedDiff);
  const reset = (p) => fs.writeFileSync(path.join(dirOf.get(p), 'big.txt'), fixture.original);
  const check = (p) => {
    if (fs.readFileSync(path.join(dirOf.get(p), 'big.txt'), 'utf8') !== fixture.expectedText) throw new Error('the file differs from the expected result');
  };
  const apply = async (p) => {
    if (p === git) return gitApply(diffFile, dirOf.get(p));
    if (p === engine) {
      const report = await applyPatch(fixture.codexPatch, dirOf.get(p));
      if (report.failed.length > 0) throw new Error(JSON.stringify(report.failed[0]).slice(0, 200));
      return undefined;
    }
    return p.adapter.applyChange(dirOf.get(p), fixture);
  };
  const samples = new Map(all.map((p) => [p, []]));
  const editBlockMs = [];
  try {
    // One untimed, checked warm-up each.
    await interleave(all, 1, async (p) => {
      reset(p);
      await apply(p);
      check(p);
    });
    await interleave(all, rounds, async (p) => {
      reset(p);
      const { ms } = await timed(() => apply(p));
      check(p);
      samples.get(p).push(ms);
      if (p.adapter?.editBlock) {
        reset(p);
        for (const hunk of fixture.hunks.slice(0, EDIT_BLOCK_SAMPLE)) editBlockMs.push((await timed(() => p.adapter.editBlock(dirOf.get(p), hunk))).ms);
        const text = fs.readFileSync(path.join(dirOf.get(p), 'big.txt'), 'utf8');
        if (!fixture.hunks.slice(0, EDIT_BLOCK_SAMPLE).every((h) => text.includes(`\n${h.replacement}\n`)))
          throw new Error('edit_block did not make its edits');
      }
    });
  } finally {
    await closeParticipants(participants);
    fs.rmSync(base, { recursive: true, force: true });
  }
  const editBlock = summarize(editBlockMs);
  const gitRow = row(git, samples.get(git), { how: 'spawnSync("git", ["apply", diff]) in the directory; process start included' });
  const engineRow = row(engine, samples.get(engine), { how: 'applyPatch(codexPatch, dir) from dist/patch/index.js, as zodexd runs it, minus MCP' });
  const ratios = {};
  for (const p of participants) if (!p.reason && !git.reason) ratios[p.id] = pairedRatios(samples.get(p), samples.get(git));
  const dc = participants.find((p) => p.id === 'desktop-commander' && !p.reason);
  return {
    ...workload,
    subtitle: `1,000 one-line edits (3 context lines each side) on a 100,000-line, ${(fixture.original.length / 1e6).toFixed(1)} MB file; ${rounds} rounds after one checked warm-up, interleaved per round (rotating start); every result checked byte for byte.`,
    settings: {
      rounds,
      hunks: fixture.hunks.length,
      fileLines: fixture.lines.length,
      fileBytes: fixture.original.length,
      codexPatchBytes: fixture.codexPatch.length,
      unifiedDiffBytes: fixture.unifiedDiff.length,
    },
    panels: [
      {
        metric: 'applyMs',
        title: 'Apply the change: call sent → result received',
        unit: 'ms',
        better: 'lower',
        rows: [...participants.map((p) => row(p, samples.get(p), rowInfo(p))), gitRow, engineRow],
        reference: gitRow.status === 'ok' ? { label: 'git apply', value: gitRow.stats.median } : undefined,
      },
    ],
    notes: [
      'Desktop Commander and mcp-server-commands have no patch tool: both are driven to run git apply on the same diff (DC: write_file the diff, then start_process; mcp-server-commands: run_command with the diff as stdin).',
      ...(dc && editBlock
        ? [
            `Desktop Commander's own editor, edit_block, takes one call per hunk (${fixture.hunks.length} calls for this change): ${editBlock.median} ms median per call here (${editBlock.n} calls sampled, min ${editBlock.min}, max ${editBlock.max}).`,
          ]
        : []),
    ],
    floor: { metric: 'applyMs', label: gitRow.label, row: gitRow },
    ratiosToFloor: ratios,
    extras: { editBlockPerHunkMs: editBlock, engine: engineRow.stats },
  };
}
