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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = process.env.ZODEX_PATCH_DIST ?? path.join(ROOT, 'dist/patch/index.js');
const ROUNDS = Math.max(5, Number(process.argv[2] ?? 7));
const FILE_LINES = 100_000;
const CHUNKS = 1_000;
const CONTEXT = 3;
const ADD_BYTES = 10 * 1024 * 1024;

if (!fs.existsSync(DIST)) {
  console.error(`apply-patch bench: ${DIST} not found; run npm run build first.`);
  process.exit(1);
}
const { applyPatch } = await import(pathToFileURL(DIST).href);

// Deterministic pseudo-random words, so every run measures the same input.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const word = () => Math.floor(random() * 36 ** 6).toString(36);

// Code-like lines: blank lines and closing braces repeat, the rest are unique.
const lines = Array.from({ length: FILE_LINES }, (_, i) =>
  i % 10 === 0 ? '' : i % 10 === 9 ? '}' : `    const v${i} = compute(${i}, "${word()}");`,
);
const original = `${lines.join('\n')}\n`;

// One edit every FILE_LINES / CHUNKS lines, on a unique line with unique lines around it.
const edits = Array.from({ length: CHUNKS }, (_, k) => k * (FILE_LINES / CHUNKS) + 5);
const codex = ['*** Begin Patch', '*** Update File: big.txt'];
const unified = ['--- a/big.txt', '+++ b/big.txt'];
const expected = [...lines];
for (const at of edits) {
  const before = lines.slice(at - CONTEXT, at);
  const after = lines.slice(at + 1, at + 1 + CONTEXT);
  const replacement = `${lines[at]} // edited`;
  expected[at] = replacement;
  const body = [...before.map((l) => ` ${l}`), `-${lines[at]}`, `+${replacement}`, ...after.map((l) => ` ${l}`)];
  codex.push('@@', ...body);
  const size = 2 * CONTEXT + 1;
  unified.push(`@@ -${at - CONTEXT + 1},${size} +${at - CONTEXT + 1},${size} @@`, ...body);
}
codex.push('*** End Patch');
const codexPatch = `${codex.join('\n')}\n`;
const unifiedDiff = `${unified.join('\n')}\n`;
const expectedText = `${expected.join('\n')}\n`;

// 10 MiB Add File of 64-byte lines, and the same new file as a unified diff.
const addLines = Array.from({ length: Math.ceil(ADD_BYTES / 64) }, (_, i) => `${String(i).padStart(12, '0')} ${'x'.repeat(50)}`);
const addPatch = `*** Begin Patch\n*** Add File: added.txt\n${addLines.map((l) => `+${l}`).join('\n')}\n*** End Patch\n`;
const addDiff = `--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1,${addLines.length} @@\n${addLines.map((l) => `+${l}`).join('\n')}\n`;
const addedText = `${addLines.join('\n')}\n`;

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
    add10MiB: `Add File of ${addLines.length} lines (${(addedText.length / 2 ** 20).toFixed(1)} MiB)`,
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
