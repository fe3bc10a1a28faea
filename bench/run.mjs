// `npm run bench`: zodex beside its peers on the same workloads in the same run. Installs the
// pinned peers into bench/.peers on first use, runs workloads 1-6 against zodexd (stdio and HTTP),
// Desktop Commander and mcp-server-commands with their floors interleaved, then gathers the floors
// (workload 7). Writes bench/results/<workload>.json and .svg, and summary.md; prints the table.
// Usage: node bench/run.mjs [--quick] [--only w1,w3,...]
// A benchmark, not a test: it never fails on a figure, only when it cannot run at all.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitVersion, requireBuild, RESULTS, ROOT, round, writeResult } from './lib.mjs';
import { formatValue, renderChart } from './compare/svg.mjs';
import { bindTargets, disableDesktopCommanderTelemetry, ensurePeers, makeScratch } from './compare/servers.mjs';
import { describeError } from './compare/harness.mjs';
import * as w1 from './compare/w1-roundtrip.mjs';
import * as w2 from './compare/w2-output.mjs';
import * as w3 from './compare/w3-interactive.mjs';
import * as w4 from './compare/w4-concurrent.mjs';
import * as w5 from './compare/w5-poll.mjs';
import * as w6 from './compare/w6-apply-patch.mjs';
import * as w7 from './compare/w7-floors.mjs';

const WORKLOADS = [w1, w2, w3, w4, w5, w6];

function parseArgs(argv) {
  const options = { quick: false, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--only') options.only = argv[++i];
    else if (arg.startsWith('--only=')) options.only = arg.slice('--only='.length);
    else if (arg === '-h' || arg === '--help') {
      console.log('Usage: node bench/run.mjs [--quick] [--only w1,w3,...]   (workloads w1..w6; w7 is always regathered)');
      process.exit(0);
    } else {
      console.error(`bench: unknown argument ${JSON.stringify(arg)}; expected --quick or --only w1,w2,...`);
      process.exit(2);
    }
  }
  if (options.only) {
    const wanted = options.only.split(',').map((s) => s.trim().toLowerCase().replace(/^w?/, 'w'));
    const unknown = wanted.filter((w) => !WORKLOADS.some((m) => m.workload.id.startsWith(`${w}-`)));
    if (unknown.length) {
      console.error(`bench: unknown workload ${unknown.join(', ')}; expected some of ${WORKLOADS.map((m) => m.workload.id.split('-')[0]).join(', ')}`);
      process.exit(2);
    }
    options.selected = WORKLOADS.filter((m) => wanted.some((w) => m.workload.id.startsWith(`${w}-`)));
  } else options.selected = WORKLOADS;
  return options;
}

const git = (...args) => {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};

// Starts each available target once: records its tools (from tools/list) and server info, and
// turns a target that does not start into "not run: REASON" for every workload.
async function probe(targets, scratch) {
  const info = [];
  for (const target of targets) {
    const entry = { id: target.id, label: target.label, version: target.version };
    if (target.unavailable) {
      info.push({ ...entry, notRun: target.unavailable });
      continue;
    }
    try {
      const server = await target.start(scratch);
      try {
        const { tools } = await server.client.listTools();
        entry.server = server.client.getServerVersion();
        entry.tools = tools.map((t) => t.name);
        entry.startupMs = Math.round(server.startupMs);
      } finally {
        await server.close();
      }
    } catch (error) {
      target.unavailable = describeError(error);
      entry.notRun = target.unavailable;
    }
    info.push(entry);
  }
  disableDesktopCommanderTelemetry(scratch);
  return info;
}

function tableCell(row) {
  if (!row) return '';
  if (row.status === 'ok') {
    const s = row.stats;
    return `${formatValue(s.median, row.unit)} (${formatValue(s.min, row.unit)}–${formatValue(s.max, row.unit)})`;
  }
  return `${row.status === 'not applicable' ? 'n/a' : 'not run'}: ${row.reason}`;
}

const COLUMNS = ['zodex-stdio', 'zodex-http', 'desktop-commander', 'mcp-server-commands'];

// One line per panel: each server's median (min–max), the floor, and zodex's ratios to it.
function summaryLines(results, targets) {
  const header = ['workload · metric', ...targets.map((t) => t.label), 'floor / reference'];
  const lines = [];
  for (const result of results) {
    for (const panel of result.panels) {
      if (panel.metric === 'ratioToFloor') {
        for (const group of [...new Set(panel.rows.map((r) => r.group))]) {
          const cells = COLUMNS.map((id) =>
            tableCell(
              panel.rows.find((x) => x.group === group && x.target === id) && {
                ...panel.rows.find((x) => x.group === group && x.target === id),
                unit: panel.unit,
              },
            ),
          );
          lines.push([`7 ratio to floor · ${group}`, ...cells, '1×']);
        }
        continue;
      }
      const cells = COLUMNS.map((id) => {
        const r = panel.rows.find((x) => x.target === id && x.kind === 'server');
        return tableCell(r && { ...r, unit: panel.unit });
      });
      const floorRow = panel.rows.find((x) => x.kind === 'floor');
      const reference = floorRow
        ? tableCell({ ...floorRow, unit: panel.unit })
        : panel.reference
          ? `${panel.reference.label}: ${formatValue(panel.reference.value, panel.unit)}`
          : '';
      lines.push([`${result.number} ${result.title} · ${panel.title}`, ...cells, reference]);
    }
  }
  return { header, lines };
}

function printTable({ header, lines }) {
  const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  const widths = [46, 30, 30, 30, 30, 30];
  const fmt = (cells) => cells.map((c, i) => clip(String(c), widths[i]).padEnd(widths[i])).join(' │ ');
  console.log(fmt(header));
  console.log(widths.map((w) => '─'.repeat(w)).join('─┼─'));
  for (const line of lines) console.log(fmt(line));
}

function markdownTable({ header, lines }) {
  const cell = (s) => String(s).replaceAll('|', '\\|');
  return [`| ${header.map(cell).join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...lines.map((l) => `| ${l.map(cell).join(' | ')} |`)].join('\n');
}

const readResult = (id) => {
  const file = path.join(RESULTS, `${id}.json`);
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
};

async function main() {
  const options = parseArgs(process.argv.slice(2));
  requireBuild();
  const started = Date.now();
  const peers = ensurePeers();
  const targets = bindTargets(peers);
  const scratch = makeScratch();
  const meta = {
    zodex: {
      version: JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version,
      commit: git('rev-parse', '--short', 'HEAD'),
      dirty: Boolean(git('status', '--porcelain', '--', 'src')),
    },
    git: gitVersion(),
    shell: process.env.SHELL || '/bin/bash',
  };
  try {
    console.log(
      `bench: ${options.quick ? 'quick run' : 'full run'} of ${options.selected.map((m) => m.workload.id).join(', ')} on ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`,
    );
    const servers = await probe(targets, scratch);
    for (const s of servers)
      console.log(`  ${s.label.padEnd(20)} ${s.notRun ? `not run: ${s.notRun}` : `${s.version}; ${s.tools.length} tools; started in ${s.startupMs} ms`}`);
    for (const module of options.selected) {
      const loadBefore = os.loadavg().map((l) => round(l, 2));
      const t0 = Date.now();
      process.stdout.write(`bench: ${module.workload.id} … `);
      const result = await module.run({ targets, scratch, quick: options.quick });
      const seconds = round((Date.now() - t0) / 1000, 1);
      console.log(`${seconds} s`);
      writeResult(result.id, {
        ...result,
        run: { quick: options.quick, seconds, loadAverageBefore: loadBefore, loadAverageAfter: os.loadavg().map((l) => round(l, 2)) },
        meta,
        servers,
      });
      fs.writeFileSync(path.join(RESULTS, `${result.id}.svg`), renderChart(result));
    }
  } finally {
    fs.rmSync(scratch.root, { recursive: true, force: true });
  }

  // Workload 7 and the summary, from every workload result on disk (this run's and, with --only,
  // earlier ones).
  const results = WORKLOADS.map((m) => readResult(m.workload.id)).filter(Boolean);
  const floors = w7.build(results);
  writeResult(floors.id, { ...floors, meta });
  fs.writeFileSync(path.join(RESULTS, `${floors.id}.svg`), renderChart(floors));
  const table = summaryLines([...results, floors], targets);
  console.log('');
  printTable(table);
  const stale = results.filter((r) => !options.selected.some((m) => m.workload.id === r.id)).map((r) => `${r.id} (${r.machine?.date})`);
  fs.writeFileSync(
    path.join(RESULTS, 'summary.md'),
    [
      `# Benchmark summary`,
      '',
      `Generated by \`npm run bench${options.quick ? ' -- --quick' : ''}\` on ${new Date().toISOString()}: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}. Median (min–max).`,
      ...(stale.length ? ['', `From earlier runs: ${stale.join(', ')}.`] : []),
      '',
      markdownTable(table),
      '',
    ].join('\n'),
  );
  console.log(`\nbench: done in ${round((Date.now() - started) / 1000, 1)} s; results in ${path.relative(process.cwd(), RESULTS) || RESULTS}/`);
}

main().catch((error) => {
  console.error(`bench: ${error instanceof Error ? error.stack : error}`);
  process.exit(1);
});
