// Workload 4: 16 concurrent sessions. Each round, each server runs 16 copies of a 1-second
// command at once (`sleep 1; echo done`); we time from the first call sent to the last result
// received, and sample the server's peak RSS. zodex over HTTP gets 16 MCP sessions (16
// conversations on one server, opened before the clock starts); stdio servers get 16 concurrent
// calls on their one connection. The floor: 16 node-pty spawns of the same command at once.

import { rssKiB, sampleRss } from '../lib.mjs';
import { floorParticipant, ptyRun } from './floor.mjs';
import { interleave, pairedRatios, row, timed } from './harness.mjs';
import { closeParticipants, openParticipants, rowInfo } from './participants.mjs';

export const SESSIONS = 16;
export const CMD = 'sleep 1; echo done';
// Coarser than workload 2's 10 ms: the round lasts over a second, and reading /proc/PID/status
// often perturbs the server measured (it made Desktop Commander's exit/output race more frequent).
const RSS_EVERY_MS = 50;

// A result without its session's output: "late" (a further read got it) or "lost" (gone for good).
function outputNote({ late, lost }, rounds) {
  const total = SESSIONS * rounds;
  if (!late && !lost) return { outputsLate: 0, outputsLost: 0 };
  const parts = [lost ? `${lost}/${total} outputs lost` : '', late ? `${late}/${total} late` : ''].filter(Boolean);
  return { outputsLate: late, outputsLost: lost, annotation: parts.join(', ') };
}

export const workload = { id: 'w4-concurrent-16', number: 4, title: '16 concurrent sessions' };

export async function run({ targets, scratch, quick }) {
  const rounds = quick ? 2 : 5;
  const participants = await openParticipants(targets, 'w4', scratch);
  const floor = floorParticipant('16 bare node-pty spawns (floor)');
  const wall = new Map([...participants, floor].map((p) => [p, []]));
  const rss = new Map(participants.map((p) => [p, []]));
  const outputs = new Map(participants.map((p) => [p, { late: 0, lost: 0 }]));
  try {
    // One untimed round each: cold servers (first spawns, JIT) are not what we compare.
    await interleave([...participants, floor], 1, async (p) => {
      if (p === floor) return Promise.all(Array.from({ length: SESSIONS }, () => ptyRun(CMD)));
      const ctx = await p.adapter.prepareConcurrent(SESSIONS);
      try {
        return await p.adapter.runConcurrent(ctx, CMD, 'done');
      } finally {
        await ctx.close();
      }
    });
    await interleave([...participants, floor], rounds, async (p) => {
      if (p === floor) {
        const { ms, value } = await timed(() => Promise.all(Array.from({ length: SESSIONS }, () => ptyRun(CMD))));
        if (value.some((r) => r.bytes < 4)) throw new Error('a bare PTY printed nothing');
        wall.get(p).push(ms);
        return;
      }
      const ctx = await p.adapter.prepareConcurrent(SESSIONS);
      try {
        const sampler = sampleRss(p.server.pid, RSS_EVERY_MS);
        let measured;
        let peak;
        try {
          measured = await timed(() => p.adapter.runConcurrent(ctx, CMD, 'done'));
        } finally {
          peak = Math.max(sampler.stop(), rssKiB(p.server.pid) || 0);
        }
        const missing = measured.value.missing.length ? await p.adapter.checkConcurrent(measured.value, 'done') : { late: 0, lost: 0 };
        wall.get(p).push(measured.ms);
        rss.get(p).push(peak / 1024);
        outputs.get(p).late += missing.late;
        outputs.get(p).lost += missing.lost;
      } finally {
        await ctx.close();
      }
    });
  } finally {
    await closeParticipants(participants);
  }
  const floorRow = row(floor, wall.get(floor), { how: `${SESSIONS} node-pty spawns of ${process.env.SHELL || '/bin/bash'} -c '${CMD}' at once; no MCP` });
  const ratios = {};
  for (const p of participants) if (!p.reason && !floor.reason) ratios[p.id] = pairedRatios(wall.get(p), wall.get(floor));
  return {
    ...workload,
    subtitle: `${SESSIONS} × \`${CMD}\` at once per server, ${rounds} rounds after one untimed; interleaved per round (rotating start). Ideal: 1,000 ms.`,
    settings: { sessions: SESSIONS, command: CMD, rounds, warmUpRounds: 1, rssSampleEveryMs: RSS_EVERY_MS },
    panels: [
      {
        metric: 'wallMs',
        title: `${SESSIONS} sessions at once: first call sent → last result received`,
        unit: 'ms',
        better: 'lower',
        rows: [...participants.map((p) => row(p, wall.get(p), { ...rowInfo(p), ...outputNote(outputs.get(p), rounds) })), floorRow],
        reference: floorRow.status === 'ok' ? { label: 'floor (16 bare node-pty spawns)', value: floorRow.stats.median } : undefined,
      },
      {
        metric: 'rssPeakMiB',
        title: 'Server peak RSS during the round (server process only)',
        unit: 'MiB',
        better: 'lower',
        rows: participants.map((p) => row(p, rss.get(p), rowInfo(p))),
      },
    ],
    notes: [
      'mcp-server-commands has no sessions: its figure is 16 blocking run_command calls at once on one connection.',
      'Every result is checked for its "done". A result without it is counted (untimed check afterwards): "late" if read_process_output still had the output, "lost" if not. Desktop Commander answers start_process on the process exit event and keeps a copy of the output taken at that moment, so output still in the pipe then is lost; how often depends on timing.',
    ],
    floor: { metric: 'wallMs', label: floorRow.label, row: floorRow },
    ratiosToFloor: ratios,
  };
}
