// What every comparative workload shares: timing, median/min/max, the interleaved schedule,
// and the one row shape a figure, a "not run" or a "not applicable" takes in JSON and charts.
// Flow: a workload calls interleave() with its participants; each participant's samples (or the
// reason it stopped) become one row of a panel; run.mjs writes the panels and draws them.

export const now = () => Number(process.hrtime.bigint()) / 1e6;

export async function timed(fn) {
  const started = now();
  const value = await fn();
  return { ms: now() - started, value };
}

const round2 = (value) => Math.round(value * 100) / 100;

// Median (mean of the middle two for an even count), min and max; the samples are kept.
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return null;
  const mid = n >> 1;
  const median = n % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { n, median: round2(median), min: round2(sorted[0]), max: round2(sorted[n - 1]), samples: samples.map(round2) };
}

// A reason a figure is missing. `kind` is what the chart and the table print before it.
export class NotRun extends Error {
  constructor(reason, kind = 'not run') {
    super(reason);
    this.kind = kind;
  }
}

export const describeError = (error) => (error instanceof Error ? error.message : String(error)).split('\n')[0].slice(0, 300);

// Round r runs every live participant once, starting with participant r mod n, so no one is
// always first or last. A participant whose step throws is dropped from the rest of the
// schedule with the reason (its earlier samples are discarded: no partial figure is reported).
export async function interleave(participants, rounds, step) {
  const live = participants.filter((p) => !p.reason);
  for (let r = 0; r < rounds; r++) {
    const order = live.map((_, i) => live[(i + r) % live.length]);
    for (const p of order) {
      if (p.reason) continue;
      try {
        await step(p, r);
      } catch (error) {
        p.reason = `${error instanceof NotRun ? '' : 'error: '}${describeError(error)}`;
        p.reasonKind = error instanceof NotRun ? error.kind : 'not run';
      }
    }
  }
}

// One chart row: a figure with min-max, or the reason there is none.
export function row(participant, samples, extra = {}) {
  const base = { target: participant.id, label: participant.label, kind: participant.kind ?? 'server' };
  if (participant.reason) return { ...base, status: participant.reasonKind ?? 'not run', reason: participant.reason, ...extra };
  const stats = summarize(samples);
  if (!stats) return { ...base, status: 'not run', reason: 'no samples', ...extra };
  return { ...base, status: 'ok', stats, ...extra };
}

// Per-pair ratios (sample i of a over sample i of b), for figures measured in lockstep.
export function pairedRatios(a, b) {
  const n = Math.min(a.length, b.length);
  return summarize(Array.from({ length: n }, (_, i) => a[i] / b[i]));
}

export function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new NotRun(typeof message === 'function' ? message() : message)), ms);
    }),
  ]);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
