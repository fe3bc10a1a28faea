// npm run test:spec: every spec file, in two vitest runs side by side. One runs the unit and
// property tests as before (vitest's own worker count: one on a 2-core machine); the other runs
// the packed-suite test, which spends most of its 100-200 s waiting on npm and on its installed
// conformance run (about a fifth of one core), so beside the rest it no longer adds its whole
// time to the run. Its report is printed when it ends; the exit is non-zero if either failed.
// With arguments (files, vitest flags) this is one plain `vitest run` with them.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = path.join(repo, 'node_modules/vitest/vitest.mjs');
const config = ['run', '--config', path.join(repo, 'spec/vitest.config.ts')];
const PACKED = 'spec/package/packed-conformance.test.ts';

function run(args, captured) {
  const child = spawn(process.execPath, [vitest, ...config, ...args], { cwd: repo, stdio: ['ignore', captured ? 'pipe' : 'inherit', captured ? 'pipe' : 'inherit'] });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output })));
}

const extra = process.argv.slice(2);
if (extra.length > 0) {
  process.exitCode = (await run(extra, false)).code;
} else {
  console.log(`spec: ${PACKED} runs beside the other spec files; its report follows theirs`);
  const packed = run([PACKED], true);
  const rest = await run(['--exclude', PACKED], false);
  const beside = await packed;
  console.log(`\n--- ${PACKED} (run beside the others) ---\n${beside.output}`);
  process.exitCode = rest.code !== 0 ? rest.code : beside.code;
}
