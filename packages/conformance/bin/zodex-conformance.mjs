#!/usr/bin/env node
// zodex-conformance: runs the conformance suite against any implementation of the zodex tool
// surface, over stdio (a command to spawn) or streamable HTTP (a URL), and prints one line per
// requirement and a total. Exits 0 when every applicable requirement passes, 1 otherwise.
//
//   npx zodex-conformance --stdio "node dist/cli/zodexd.js"
//   npx zodex-conformance --url http://127.0.0.1:7391/mcp [--header "Authorization: Bearer T"]
//   ... --protocol modern   the suite's client speaks MCP 2026-07-28 (per-request _meta, no
//                           initialize); legacy (the default) speaks 2025-11-25
//
// Requirements that need to start the server with particular flags, or to look at its process
// from outside, only run against this checkout's own zodexd (npm test); here they are listed
// as not applicable.

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const installed = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Playwright compiles TypeScript only outside node_modules: installed from a package, the suite
// runs from a private copy whose node_modules is a link to the one this package was installed into.
function runnableRoot() {
  const parts = installed.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return { root: installed, cleanup: () => {} };
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conformance-suite-'));
  const skip = new Set(['node_modules', 'results', '.artifacts'].map((name) => path.join(installed, name)));
  fs.cpSync(installed, copy, { recursive: true, filter: (source) => !skip.has(source) });
  fs.symlinkSync(parts.slice(0, at + 1).join(path.sep), path.join(copy, 'node_modules'), 'dir');
  return { root: copy, cleanup: () => fs.rmSync(copy, { recursive: true, force: true }) };
}
const usage = 'usage: zodex-conformance --stdio "CMD ARGS" | --url URL [--header "K: V"]... [--protocol legacy|modern] [--workers N] [--grep PATTERN]';

let flags;
try {
  ({ values: flags } = parseArgs({
    options: {
      stdio: { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      protocol: { type: 'string', default: 'legacy' },
      workers: { type: 'string' },
      grep: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  console.error(`zodex-conformance: ${error.message}\n${usage}`);
  process.exit(2);
}
if (flags.help) {
  console.log(usage);
  process.exit(0);
}
if (Boolean(flags.stdio) === Boolean(flags.url)) {
  console.error(`zodex-conformance: give exactly one of --stdio or --url\n${usage}`);
  process.exit(2);
}

if (!['legacy', 'modern'].includes(flags.protocol)) {
  console.error(`zodex-conformance: --protocol must be legacy (MCP 2025-11-25) or modern (MCP 2026-07-28), not ${JSON.stringify(flags.protocol.slice(0, 40))}\n${usage}`);
  process.exit(2);
}

const results = process.env.ZODEX_CONFORMANCE_RESULTS || fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conformance-'));
const env = {
  ...process.env,
  ZODEX_CONFORMANCE_TARGET: `${flags.stdio ? 'remote-stdio' : 'remote-http'}${flags.protocol === 'modern' ? '-modern' : ''}`,
  ZODEX_CONFORMANCE_RESULTS: results,
  ZODEX_CONFORMANCE_PRINT: '1',
  ...(flags.stdio ? { ZODEX_CONFORMANCE_STDIO: flags.stdio } : { ZODEX_CONFORMANCE_URL: flags.url, ZODEX_CONFORMANCE_HEADERS: (flags.header ?? []).join('\n') }),
  ...(flags.workers ? { ZODEX_CONFORMANCE_WORKERS: flags.workers } : {}),
};
// Resolved, not joined: installed from a tarball, @playwright/test sits beside this package, not in it.
const { root, cleanup } = runnableRoot();
const playwright = createRequire(import.meta.url).resolve('@playwright/test/cli');
const args = [playwright, 'test', '-c', path.join(root, 'playwright.config.ts'), '--reporter', path.join(root, 'harness/table-reporter.ts')];
if (flags.grep) args.push('--grep', flags.grep);
const run = spawnSync(process.execPath, args, { env, stdio: 'inherit', cwd: root });
cleanup();
console.log(`table: ${path.join(results, 'requirements.md')}`);
process.exit(run.status === 0 ? 0 : 1);
