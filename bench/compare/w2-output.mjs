// Workload 2: a command printing 50 MB (500,000 lines of 99 "x" + newline). Per run: wall time
// of the call to completion, the server's peak RSS during it (VmRSS every 10 ms), the bytes the
// call's result carried, and how many of the 50 MB the caller can still get at afterwards
// through the server's tools. Each run gets a freshly started server, so no run inherits
// another's buffers. The floor: node-pty reading the same command (`stty -opost` first, since
// zodex turns output post-processing off too).

import { rssKiB, sampleRss } from '../lib.mjs';
import { floorParticipant, ptyRun } from './floor.mjs';
import { interleave, NotRun, pairedRatios, row, sleep, summarize, timed } from './harness.mjs';
import { closeParticipants, openParticipant } from './participants.mjs';

export const BIG_BYTES = 50_000_000;
export const BIG = `yes "$(head -c 99 /dev/zero | tr '\\0' x)" | head -c ${BIG_BYTES}`;
const SETTLE_MS = 300;

export const workload = { id: 'w2-output-50mb', number: 2, title: 'A command printing 50 MB' };

export async function run({ targets, scratch, quick }) {
  const rounds = quick ? 2 : 5;
  const participants = targets.map((t) => ({
    id: t.id,
    label: t.label,
    kind: 'server',
    version: t.version,
    target: t,
    reason: t.unavailable,
    reasonKind: 'not run',
    startupMs: [],
  }));
  const floor = floorParticipant('bare node-pty read (floor)');
  const series = new Map(
    [...participants, floor].map((p) => [p, { ms: [], rssPeakMiB: [], rssBeforeMiB: [], resultKiB: [], reachableMB: [], retainedMB: [], details: [] }]),
  );

  await interleave([...participants, floor], rounds, async (p) => {
    const s = series.get(p);
    if (p === floor) {
      const { ms, bytes } = await ptyRun(`stty -opost; ${BIG}`);
      // node-pty may drop the last few KB at exit (see bench/output.mjs): the command ran whole.
      if (bytes < BIG_BYTES * 0.99) throw new Error(`bare PTY read ${bytes} bytes of ${BIG_BYTES}`);
      s.ms.push(ms);
      return;
    }
    const q = await openParticipant(p.target, 'w2', scratch);
    if (q.reason) throw new NotRun(q.reason, q.reasonKind);
    p.how = q.how;
    p.startupMs.push(q.startupMs);
    try {
      await sleep(SETTLE_MS);
      const before = rssKiB(q.server.pid);
      const sampler = sampleRss(q.server.pid, 10);
      let peak = before;
      let measured;
      try {
        measured = await timed(() => q.adapter.bigOutput(BIG, BIG_BYTES));
      } finally {
        peak = Math.max(sampler.stop(), rssKiB(q.server.pid) || 0);
      }
      const { ms, value } = measured;
      const reach = await q.adapter.reachable(value);
      s.ms.push(ms);
      s.rssBeforeMiB.push(before / 1024);
      s.rssPeakMiB.push(peak / 1024);
      s.resultKiB.push(reach.resultBytes / 1024);
      s.reachableMB.push(reach.reachableBytes / 1e6);
      s.retainedMB.push(reach.retainedBytes / 1e6);
      s.details.push(reach.detail);
    } finally {
      await closeParticipants([q]);
    }
  });

  const info = (p) => ({ version: p.version, how: p.how, startupMs: summarize(p.startupMs)?.median });
  const rowsOf = (key, withFloor) => [
    ...participants.map((p) => row(p, series.get(p)[key], info(p))),
    ...(withFloor ? [row(floor, series.get(floor)[key], { how: `node-pty spawn of \`stty -opost; <command>\`, read to exit; no MCP` })] : []),
  ];
  const wall = rowsOf('ms', true);
  const floorRow = wall.at(-1);
  const ratios = {};
  for (const p of participants) if (!p.reason && !floor.reason) ratios[p.id] = pairedRatios(series.get(p).ms, series.get(floor).ms);
  const extras = Object.fromEntries(
    participants
      .filter((p) => !p.reason)
      .map((p) => {
        const s = series.get(p);
        return [p.id, { rssBeforeMiB: summarize(s.rssBeforeMiB), retainedMB: summarize(s.retainedMB), details: s.details[0] }];
      }),
  );
  const floorRate = floorRow.status === 'ok' ? Math.round((BIG_BYTES / 1e6 / (floorRow.stats.median / 1000)) * 10) / 10 : undefined;
  return {
    ...workload,
    subtitle: `${BIG} — ${rounds} runs per server, each on a freshly started server; interleaved per run (rotating start).`,
    settings: { command: BIG, bytes: BIG_BYTES, rounds, rssSampleEveryMs: 10, settleMs: SETTLE_MS, serverPerRun: true },
    panels: [
      {
        metric: 'wallMs',
        title: 'Wall time: call sent → result received',
        unit: 'ms',
        better: 'lower',
        rows: wall,
        reference: floorRow.status === 'ok' ? { label: `floor (bare node-pty read, ${floorRate} MB/s)`, value: floorRow.stats.median } : undefined,
      },
      { metric: 'rssPeakMiB', title: 'Server peak RSS during the call (server process only)', unit: 'MiB', better: 'lower', rows: rowsOf('rssPeakMiB', false) },
      { metric: 'resultKiB', title: "Output carried in the call's result (what lands in the model's context)", unit: 'KiB', rows: rowsOf('resultKiB', false) },
      {
        metric: 'reachableMB',
        title: 'Output the caller can still get at afterwards, through the tools',
        unit: 'MB',
        better: 'higher',
        rows: rowsOf('reachableMB', false),
        reference: { label: 'whole stream', value: BIG_BYTES / 1e6 },
      },
    ],
    notes: [
      'zodex keeps the first 16 MiB in a spill file (output_file) and returns the last 4 KiB; Desktop Commander keeps up to 50 Mi characters per session in memory, read back with read_process_output; mcp-server-commands uses child_process.exec, whose 1 MiB maxBuffer ends the command and returns what it had.',
    ],
    floor: { metric: 'wallMs', label: floorRow.label, row: floorRow, rateMBps: floorRate },
    ratiosToFloor: ratios,
    extras,
  };
}
