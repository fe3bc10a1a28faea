// The conformance suite: one set of specs, one Playwright project per target.
// Managed targets (stdio, http) start this checkout's zodexd; the runner
// (bin/zodex-conformance.mjs) sets ZODEX_CONFORMANCE_TARGET to run against anything else.
// The browser project (the Liveboard in Debian's Chromium) runs with the managed targets only;
// without /usr/bin/chromium its tests skip, or fail under ZODEX_NO_SKIP=1 (see browser/board.ts).
// The container projects (the suite inside a client container; zodexd inside a sandbox
// container) need Docker: without it their tests skip, saying so, or fail under ZODEX_NO_SKIP=1.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type PlaywrightTestOptions, type PlaywrightWorkerOptions, type Project } from '@playwright/test';
import { EXCLUDED_TAGS, ONLY_TAGS } from './requirements.js';
import { CHROMIUM, CHROMIUM_ARGS } from './browser/chromium.js';
import { dockerUnavailable } from './harness/docker.js';
import type { SuiteOptions } from './harness/fixtures.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.env.ZODEX_CONFORMANCE_TARGET;
// Servers the suite starts keep their history in a scratch state dir, and their spill files in a
// scratch spill parent, not the user's; both are removed after the run (harness/global-teardown.ts).
// A command given to the runner (--stdio) inherits them too, made under its --workspace if it has
// one; a server reached by URL inherits nothing. Made once, by the runner's process: its workers
// inherit the variables.
const scratchParent = (only?.startsWith('remote-stdio') && process.env.ZODEX_CONFORMANCE_WORKSPACE) || os.tmpdir();
const scratch = (variable: string, prefix: string) => {
  if (process.env[variable]) return;
  process.env[variable] = fs.mkdtempSync(path.join(scratchParent, prefix));
  process.env.ZODEX_CONFORMANCE_SCRATCH = [process.env.ZODEX_CONFORMANCE_SCRATCH, process.env[variable]].filter(Boolean).join(path.delimiter);
};
if (!only?.startsWith('remote-http')) {
  scratch('XDG_STATE_HOME', 'zodex-conformance-state-');
  scratch('ZODEX_SPILL_DIR', 'zodex-conformance-spill-');
}
// Each managed target twice: the suite's client speaking 2025-11-25 (stdio, http) and 2026-07-28
// (stdio-modern, http-modern). The container, browser and sandbox projects speak 2025-11-25.
const targets = only ? [only] : ['stdio', 'http', 'stdio-modern', 'http-modern'];
if (!only && process.env.ZODEX_DOCKER_UNAVAILABLE === undefined) {
  const why = dockerUnavailable();
  if (why !== undefined) {
    if (process.env.ZODEX_NO_SKIP) throw new Error(`Docker is not available (${why}); ZODEX_NO_SKIP=1 turns the container targets' skip into a failure`);
    process.env.ZODEX_DOCKER_UNAVAILABLE = why; // read by the workers: they skip, saying why
    console.warn(`\n*** SKIPPING the container and sandbox targets: Docker is not available (${why}) ***\n`);
  }
}

function project(name: string): Project<SuiteOptions> {
  const modern = name.endsWith('-modern');
  return {
    name,
    testDir: './specs',
    grepInvert: EXCLUDED_TAGS[name] ?? [],
    use: { target: name.replace(/-modern$/, '') as SuiteOptions['target'], protocol: modern ? 'modern' : 'legacy' },
  };
}

const browserProject: Project<PlaywrightTestOptions & SuiteOptions, PlaywrightWorkerOptions> = {
  name: 'browser',
  testDir: './browser',
  grep: ONLY_TAGS.browser,
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    screenshot: 'on',
  },
};

// The suite inside zodex-client:local against a zodexd here, and the compose demo.
const containerProject: Project<SuiteOptions> = {
  name: 'container',
  testDir: './containers',
  testMatch: ['client.spec.ts', 'bridge.spec.ts', 'compose.spec.ts', 'pod.spec.ts', 'swarm.spec.ts'],
  use: { target: 'container' },
};

// zodexd inside zodex:local (Sprite mode, token), driven from here by the whole suite.
const sandboxProject: Project<SuiteOptions> = {
  name: 'sandbox',
  testDir: '.',
  testMatch: ['specs/**/*.spec.ts', 'containers/sandbox.spec.ts'],
  grepInvert: EXCLUDED_TAGS.sandbox ?? [],
  use: { target: 'sandbox' },
};

export default defineConfig<SuiteOptions>({
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: Number(process.env.ZODEX_CONFORMANCE_WORKERS ?? 3), // most tests wait: 3 measured 7.8 min against 10.2 with 2
  forbidOnly: true,
  retries: 0,
  outputDir: path.join(here, '.artifacts/test-output'),
  reporter: [
    [process.env.CI ? 'line' : 'list'],
    ['./harness/table-reporter.ts', { outputDir: process.env.ZODEX_CONFORMANCE_RESULTS ?? path.join(here, 'results') }],
  ],
  globalSetup: './containers/global-setup.ts',
  globalTeardown: './harness/global-teardown.ts',
  projects: [...targets.map(project), ...(only ? [] : [browserProject, containerProject, sandboxProject])],
});
