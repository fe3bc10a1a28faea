// npm run test:spec: every spec file, in vitest runs side by side (scripts/beside.mjs). One runs
// the unit and property tests (vitest's own worker count: one on a 2-core machine); beside it run
// the packed-suite test, which spends most of its 100-200 s waiting on npm and on its installed
// conformance run (about a fifth of one core), and the spec files' typecheck
// (`tsc -p spec/tsconfig.json`, ~30 s of one core; vitest itself does not typecheck). Their
// reports are printed when the unit tests end. The exit is non-zero if any of the three failed.
// With arguments (files, vitest flags) this is one plain `vitest run` with them.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beside, start } from '../scripts/beside.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = [path.join(repo, 'node_modules/vitest/vitest.mjs'), 'run', '--config', path.join(repo, 'spec/vitest.config.ts')];
const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
const PACKED = 'spec/package/packed-conformance.test.ts';
const node = (label, args, captured) => start(label, process.execPath, args, { captured, cwd: repo });

const extra = process.argv.slice(2);
if (extra.length > 0) {
  process.exitCode = (await node('vitest', [...vitest, ...extra], false).done).code;
} else {
  console.log(`spec: ${PACKED} and the spec typecheck run beside the other spec files; their reports follow`);
  const typecheck = node('tsc -p spec/tsconfig.json --noEmit', [tsc, '-p', path.join(repo, 'spec/tsconfig.json'), '--noEmit'], true);
  const packed = node(PACKED, [...vitest, PACKED], true);
  process.exitCode = await beside(node('the other spec files', [...vitest, '--exclude', PACKED], false), [typecheck, packed]);
}
