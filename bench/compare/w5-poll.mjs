// Workload 5: a long-running command polled to completion. The command prints a line every
// 0.5 s for 3 s; the caller starts it and polls with the same 1,000 ms wait on every server
// (zodex yield_time_ms, Desktop Commander timeout_ms) until the server reports the end. We time
// start → end known to the caller, count the calls, and check every line arrived. The floor:
// node-pty running the same command to its exit.

import { floorParticipant, ptyRun } from './floor.mjs';
import { interleave, pairedRatios, row, summarize, timed } from './harness.mjs';
import { closeParticipants, openParticipants, rowInfo } from './participants.mjs';

export const CMD = 'for i in 1 2 3 4 5 6; do sleep 0.5; echo tick $i; done';
export const POLL_WAIT_MS = 1000;

export const workload = { id: 'w5-poll', number: 5, title: 'Long-running command polled to completion' };

export async function run({ targets, scratch, quick }) {
  const rounds = quick ? 2 : 5;
  const participants = await openParticipants(targets, 'w5', scratch);
  const floor = floorParticipant('bare node-pty run (floor)');
  const wall = new Map([...participants, floor].map((p) => [p, []]));
  const calls = new Map(participants.map((p) => [p, []]));
  const incomplete = new Map(participants.map((p) => [p, []]));
  try {
    await interleave([...participants, floor], rounds, async (p, r) => {
      if (p === floor) {
        const { ms, value } = await timed(() => ptyRun(CMD));
        if (value.bytes < 6 * 8) throw new Error('bare PTY output is short');
        wall.get(p).push(ms);
        return;
      }
      const { ms, value } = await timed(() => p.adapter.poll(CMD, POLL_WAIT_MS));
      // The end is known either way; a run whose lines did not all reach the caller is counted.
      const missing = [1, 2, 3, 4, 5, 6].filter((i) => !value.output.includes(`tick ${i}`));
      if (missing.length > 0) incomplete.get(p).push(`round ${r}: tick ${missing.join(', ')} missing`);
      wall.get(p).push(ms);
      calls.get(p).push(value.calls);
    });
  } finally {
    await closeParticipants(participants);
  }
  const floorRow = row(floor, wall.get(floor), { how: `node-pty spawn of ${process.env.SHELL || '/bin/bash'} -c '<command>', read to exit; no MCP` });
  const ratios = {};
  for (const p of participants) if (!p.reason && !floor.reason) ratios[p.id] = pairedRatios(wall.get(p), wall.get(floor));
  return {
    ...workload,
    subtitle: `\`${CMD}\` (3 s), started and polled with a ${POLL_WAIT_MS} ms wait per call until done; ${rounds} rounds, interleaved per round (rotating start).`,
    settings: { command: CMD, pollWaitMs: POLL_WAIT_MS, rounds },
    panels: [
      {
        metric: 'wallMs',
        title: 'Start → completion known to the caller',
        unit: 'ms',
        better: 'lower',
        rows: [
          ...participants.map((p) => {
            const lost = incomplete.get(p);
            const note = lost.length ? { annotation: `output incomplete in ${lost.length}/${rounds} runs`, incompleteRuns: lost } : {};
            return row(p, wall.get(p), { ...rowInfo(p), callsToCompletion: p.reason ? undefined : summarize(calls.get(p)), ...note });
          }),
          floorRow,
        ],
        reference: floorRow.status === 'ok' ? { label: 'floor (the command itself under bare node-pty)', value: floorRow.stats.median } : undefined,
      },
    ],
    notes: [
      'zodex: a waiting exec_command / write_stdin returns as soon as the command exits. Desktop Commander: read_process_output returns when a new line arrives (checked every 50 ms) or the wait ends; the end shows as "Process completed". Every run is checked for all six lines; a run missing some is counted on its row.',
    ],
    floor: { metric: 'wallMs', label: floorRow.label, row: floorRow },
    ratiosToFloor: ratios,
  };
}
