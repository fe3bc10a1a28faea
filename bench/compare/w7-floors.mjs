// Workload 7: the floors. Each of workloads 1-6 measured its floor in the same run, interleaved
// with the servers (bare node-pty spawn/read/session, git apply); this gathers them and shows every
// zodex figure as a ratio to its floor: the median of per-round ratios (zodex run i ÷ floor run i).

export const workload = { id: 'w7-floors', number: 7, title: 'zodex as a ratio to its floor' };

const ZODEX = ['zodex-stdio', 'zodex-http'];
const TRANSPORT = { 'zodex-stdio': 'stdio', 'zodex-http': 'HTTP' };

// `results`: the workload results (w1..w6) found in bench/results, in order.
export function build(results) {
  const rows = [];
  const floors = {};
  for (const result of results) {
    if (!result.floor) continue;
    floors[result.id] = {
      metric: result.floor.metric,
      label: result.floor.label,
      stats: result.floor.row?.stats,
      status: result.floor.row?.status,
      reason: result.floor.row?.reason,
      measuredAt: result.machine?.date,
    };
    const panel = result.panels.find((p) => p.metric === result.floor.metric);
    for (const target of ZODEX) {
      const group = `${result.number} ${shortName(result)}`;
      const label = `${group} · ${TRANSPORT[target]}`;
      const source = panel?.rows.find((r) => r.target === target);
      const ratio = result.ratiosToFloor?.[target];
      if (ratio) rows.push({ target, label, group, kind: 'server', status: 'ok', stats: ratio });
      else if (result.floor.row?.status !== 'ok')
        rows.push({ target, label, group, kind: 'server', status: 'not run', reason: `floor not measured: ${result.floor.row?.reason ?? 'missing'}` });
      else rows.push({ target, label, group, kind: 'server', status: source?.status ?? 'not run', reason: source?.reason ?? 'no figure' });
    }
  }
  return {
    ...workload,
    subtitle:
      'Each zodex figure divided by the floor measured beside it in the same run (1 = as fast as the floor; 2 = twice its time). Floors: bare node-pty spawn (1, 4), read (2), session (3), run (5); git apply (6).',
    panels: [
      {
        metric: 'ratioToFloor',
        title: 'zodex time ÷ floor time (median of per-round ratios, min–max)',
        unit: '×',
        better: 'lower',
        scale: 'log',
        rows,
        reference: { label: 'floor', value: 1 },
      },
    ],
    floors,
    sources: results.map((r) => ({ id: r.id, date: r.machine?.date, quick: r.run?.quick })),
  };
}

const shortName = (result) =>
  ({
    'w1-roundtrip': 'round trip',
    'w2-output-50mb': '50 MB output',
    'w3-interactive': 'interactive',
    'w4-concurrent-16': '16 sessions',
    'w5-poll': 'polled run',
    'w6-apply-patch': 'vs git apply',
  })[result.id] ?? result.id;
