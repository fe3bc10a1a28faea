// The conformance suite: one set of specs, one Playwright project per target.
// Managed targets (stdio, http) start this checkout's zodexd; the runner
// (bin/zodex-conformance.mjs) sets ZODEX_CONFORMANCE_TARGET to run against anything else.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Project } from '@playwright/test';
import { EXCLUDED_TAGS } from './requirements.js';
import type { SuiteOptions } from './harness/fixtures.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Servers the suite starts keep their history in a scratch state dir, not the user's.
process.env.XDG_STATE_HOME ??= fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conformance-state-'));
const only = process.env.ZODEX_CONFORMANCE_TARGET;
const targets = only ? [only] : ['stdio', 'http'];

function project(name: string): Project<SuiteOptions> {
  return {
    name,
    testDir: './specs',
    grepInvert: EXCLUDED_TAGS[name] ?? [],
    use: { target: name as SuiteOptions['target'] },
  };
}

export default defineConfig<SuiteOptions>({
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: Number(process.env.ZODEX_CONFORMANCE_WORKERS ?? 2),
  forbidOnly: true,
  retries: 0,
  outputDir: path.join(here, '.artifacts/test-output'),
  reporter: [
    [process.env.CI ? 'line' : 'list'],
    ['./harness/table-reporter.ts', { outputDir: process.env.ZODEX_CONFORMANCE_RESULTS ?? path.join(here, 'results') }],
  ],
  projects: targets.map(project),
});
