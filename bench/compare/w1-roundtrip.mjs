// Workload 1: a trivial command (`true`) round trip, sequential. Interleaved per call: call i of
// every server and of the floor (node-pty spawning `$SHELL -c true`) run back to back, the
// starting one rotating, so noise at any moment hits all alike.

import { floorParticipant, ptyRun } from './floor.mjs';
import { interleave, pairedRatios, row, timed } from './harness.mjs';
import { closeParticipants, openParticipants, rowInfo } from './participants.mjs';

const CMD = 'true';
const WARM_UP = 10;

export const workload = { id: 'w1-roundtrip', number: 1, title: 'Trivial command round trip' };

export async function run({ targets, scratch, quick }) {
  const calls = quick ? 30 : 200;
  const participants = await openParticipants(targets, 'w1', scratch);
  const floor = floorParticipant('bare node-pty spawn (floor)');
  const samples = new Map([...participants, floor].map((p) => [p, []]));
  try {
    // Untimed warm-up: first calls pay for lazy loading, login-shell capture and the like.
    await interleave([...participants, floor], WARM_UP, (p) => (p === floor ? ptyRun(CMD) : p.adapter.trivial(CMD)));
    await interleave([...participants, floor], calls, async (p) => {
      const { ms } = await timed(() => (p === floor ? ptyRun(CMD) : p.adapter.trivial(CMD)));
      samples.get(p).push(ms);
    });
  } finally {
    await closeParticipants(participants);
  }
  const floorRow = row(floor, samples.get(floor), { how: `node-pty spawn of ${process.env.SHELL || '/bin/bash'} -c ${CMD}, read to exit; no MCP` });
  const rows = participants.map((p) => row(p, samples.get(p), rowInfo(p)));
  const ratios = {};
  for (const p of participants) if (!p.reason && !floor.reason) ratios[p.id] = pairedRatios(samples.get(p), samples.get(floor));
  return {
    ...workload,
    subtitle: `\`${CMD}\` through each server's command tool, ${calls} sequential calls each after ${WARM_UP} untimed warm-up calls; interleaved per call (A B C D floor, rotating start).`,
    settings: { command: CMD, calls, warmUp: WARM_UP, interleave: 'per call, starting participant rotating each round' },
    panels: [
      {
        metric: 'roundTripMs',
        title: 'Round trip of `true`: call sent → result received',
        unit: 'ms',
        better: 'lower',
        rows: [...rows, floorRow],
        reference: floorRow.status === 'ok' ? { label: 'floor (bare node-pty spawn)', value: floorRow.stats.median } : undefined,
      },
    ],
    floor: { metric: 'roundTripMs', label: floorRow.label, row: floorRow },
    ratiosToFloor: ratios,
  };
}
