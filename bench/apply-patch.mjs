// apply_patch speed against `git apply`: 1,000 update chunks on a 100,000-line file (the same
// edits as a Codex patch and as a unified diff), plus one 10 MiB Add File. Rounds interleave the
// two tools (alternating which goes first); each run starts from a freshly written input file.
// zodex is timed in-process (as the server runs it); git is timed as a process, so its figure
// includes a process start, reported separately as `git --version`.
// Usage: npm run build && node bench/apply-patch.mjs [rounds]   (ZODEX_PATCH_DIST=dir/to/patch/index.js overrides)

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { addFixture, CHUNKS, CONTEXT, FILE_LINES, updateFixture } from './patch-fixture.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ZODEX_PATCH_DIST ?? path.join(ROOT, 'dist/patch/index.js');
const ROUNDS = Math.max(5, Number(process.argv[2] ?? 7));

if (!fs.existsSync(DIST)) {
  console.error(`apply-patch bench: ${DIST} not found; run npm run build first.`);
  process.exit(1);
}
const { applyPatch } = await import(pathToFileURL(DIST).href);

// The change (bench/patch-fixture.mjs): 1,000 update chunks, and a 10 MiB Add File.
const { original, codexPatch, unifiedDiff, expectedText } = updateFixture();
const { addPatch, addDiff, addedText, lineCount: addLineCount } = addFixture();

const loadBefore = os.loadavg()[0];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-bench-patch-'));
const zodexDir = path.join(work, 'zodex');
const gitDir = path.join(work, 'git');
fs.mkdirSync(zodexDir);
fs.mkdirSync(gitDir);
fs.writeFileSync(path.join(work, 'big.diff'), unifiedDiff);
fs.writeFileSync(path.join(work, 'add.diff'), addDiff);

const time = async (fn) => {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

function git(args, cwd) {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const scenarios = {
  update: {
    reset: (dir) => fs.writeFileSync(path.join(dir, 'big.txt'), original),
    zodex: async () => {
      const report = await applyPatch(codexPatch, zodexDir);
      if (report.failed.length > 0) throw new Error(JSON.stringify(report.failed[0]));
    },
    git: () => git(['apply', path.join(work, 'big.diff')], gitDir),
    check: () => checkBoth('big.txt', expectedText),
  },
  add10MiB: {
    reset: (dir) => fs.rmSync(path.join(dir, 'added.txt'), { force: true }),
    zodex: async () => {
      const report = await applyPatch(addPatch, zodexDir);
      if (report.failed.length > 0) throw new Error(JSON.stringify(report.failed[0]));
    },
    git: () => git(['apply', path.join(work, 'add.diff')], gitDir),
    check: () => checkBoth('added.txt', addedText),
  },
};

function checkBoth(name, text) {
  for (const dir of [zodexDir, gitDir]) {
    if (fs.readFileSync(path.join(dir, name), 'utf8') !== text) throw new Error(`${dir}/${name} differs from the expected result`);
  }
}

const stats = (ms) => {
  const sorted = [...ms].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  const round = (v) => Math.round(v * 100) / 100;
  return { median: round(median), min: round(sorted[0]), max: round(sorted.at(-1)), runs: ms.map(round) };
};

const results = {};
try {
  for (const [name, s] of Object.entries(scenarios)) {
    const dirs = { zodex: zodexDir, git: gitDir };
    for (const tool of ['zodex', 'git']) {
      s.reset(dirs[tool]); // one untimed warm-up of each tool, checked for the right result
      await s[tool]();
    }
    s.check();
    const ms = { zodex: [], git: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const tool of r % 2 === 0 ? ['zodex', 'git'] : ['git', 'zodex']) {
        s.reset(dirs[tool]);
        ms[tool].push(await time(s[tool]));
      }
    }
    s.check();
    const zodex = stats(ms.zodex);
    const gitStats = stats(ms.git);
    results[name] = { zodex, git: gitStats, ratioZodexOverGit: Math.round((zodex.median / gitStats.median) * 1000) / 1000 };
  }
  const spawn = [];
  for (let r = 0; r < ROUNDS; r++) spawn.push(await time(() => git(['--version'], work)));
  results.gitProcessStart = stats(spawn);
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}

const report = {
  date: new Date().toISOString(),
  machine: {
    node: process.version,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    platform: `${os.platform()} ${os.release()}`,
    git: git(['--version'], ROOT).trim(),
    loadAverage1min: { before: loadBefore, after: os.loadavg()[0] }, // other work on the machine skews all figures
  },
  workload: {
    update: `${CHUNKS} chunks (${CONTEXT} context lines each side, 1 line replaced) on a ${FILE_LINES}-line file (${(original.length / 1e6).toFixed(1)} MB)`,
    add10MiB: `Add File of ${addLineCount} lines (${(addedText.length / 2 ** 20).toFixed(1)} MiB)`,
    rounds: ROUNDS,
    timing: 'ms; zodex in-process applyPatch(); git = spawnSync("git apply"), process start included (see gitProcessStart)',
  },
  results,
};

fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/apply-patch.json'), `${JSON.stringify(report, null, 2)}\n`);
for (const [name, r] of Object.entries(results)) {
  if (!r.zodex) {
    console.log(`${name.padEnd(16)} median ${r.median} ms (min ${r.min}, max ${r.max})`);
    continue;
  }
  const line = (tool, s) => `${tool} median ${s.median} ms (min ${s.min}, max ${s.max})`;
  console.log(`${name.padEnd(16)} ${line('zodex', r.zodex)} | ${line('git apply', r.git)} | zodex/git ${r.ratioZodexOverGit}`);
}
console.log(`load average (1 min) ${loadBefore.toFixed(2)} -> ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
console.log('written: bench/results/apply-patch.json');
