// Workload 3: an interactive round trip. Each server starts a program that prompts "> ", reads
// a line and answers "answer:LINE"; we then time input sent → answer in the caller's hands, each
// server its own way of typing into a running program. Interleaved per ping. The floor: a
// node-pty session running the same program, written to and read directly.

import { floorParticipant, ptySession } from './floor.mjs';
import { interleave, pairedRatios, row, summarize, timed } from './harness.mjs';
import { closeParticipants, openParticipants, rowInfo } from './participants.mjs';

export const PROGRAM = `printf '> '; while IFS= read -r line; do printf 'answer:%s\\n> ' "$line"; done`;
const WARM_UP = 3;

export const workload = { id: 'w3-interactive', number: 3, title: 'Interactive round trip' };

export async function run({ targets, scratch, quick }) {
  const pings = quick ? 10 : 60;
  const participants = await openParticipants(targets, 'w3', scratch);
  const floor = floorParticipant('bare node-pty session (floor)');
  const samples = new Map([...participants, floor].map((p) => [p, []]));
  const calls = new Map(participants.map((p) => [p, []]));
  const sessions = new Map();
  let floorSession;
  let counter = 0;
  const text = () => `ping-${String(++counter).padStart(5, '0')}`; // fixed width: no answer is a prefix of another
  const ping = (p) => (p === floor ? floorSession.ping(text()).then(() => ({ calls: 0 })) : p.adapter.ping(sessions.get(p), text()));
  try {
    await interleave([...participants, floor], 1, async (p) => {
      if (p === floor) {
        floorSession = ptySession(PROGRAM);
        await floorSession.ready();
      } else sessions.set(p, await p.adapter.startInteractive(PROGRAM));
    });
    await interleave([...participants, floor], WARM_UP, ping);
    await interleave([...participants, floor], pings, async (p) => {
      const { ms, value } = await timed(() => ping(p));
      samples.get(p).push(ms);
      if (p !== floor) calls.get(p).push(value.calls);
    });
  } finally {
    for (const [p, session] of sessions) await p.adapter.stopInteractive(session).catch(() => {});
    floorSession?.close();
    await closeParticipants(participants);
  }
  const rows = participants.map((p) => row(p, samples.get(p), { ...rowInfo(p), callsPerAnswer: p.reason ? undefined : summarize(calls.get(p)) }));
  const floorRow = row(floor, samples.get(floor), {
    how: `node-pty session of ${process.env.SHELL || '/bin/bash'} -c <program>: write the line, wait for the answer; no MCP`,
  });
  const ratios = {};
  for (const p of participants) if (!p.reason && !floor.reason) ratios[p.id] = pairedRatios(samples.get(p), samples.get(floor));
  return {
    ...workload,
    subtitle: `Program: ${PROGRAM} — ${pings} timed pings per server after ${WARM_UP} untimed; interleaved per ping (rotating start).`,
    settings: { program: PROGRAM, pings, warmUp: WARM_UP, interleave: 'per ping, starting participant rotating each round' },
    panels: [
      {
        metric: 'answerMs',
        title: 'Input sent → answer received by the caller',
        unit: 'ms',
        better: 'lower',
        rows: [...rows, floorRow],
        reference: floorRow.status === 'ok' ? { label: 'floor (bare node-pty)', value: floorRow.stats.median } : undefined,
      },
    ],
    notes: [
      'zodex: one write_stdin call with the line (yield_time_ms 5000); it returns once the program has answered beyond the echo and paused 10 ms. Desktop Commander: one interact_with_process call, which returns when its 50 ms server-side poll sees the prompt.',
    ],
    floor: { metric: 'answerMs', label: floorRow.label, row: floorRow },
    ratiosToFloor: ratios,
  };
}
