#!/usr/bin/env node
// zodex-conformance: runs the conformance suite against any implementation of the three tools
// (exec_command, write_stdin, apply_patch), over stdio (a command to spawn) or streamable HTTP (a
// URL), and prints one line per requirement: its profile, PASS / FAIL with the reason / n/a with
// the reason, then a total per profile. Exits 0 when every applicable requirement of the chosen
// profiles passes, 1 when one does not, 2 on a usage error.
//
//   npx zodex-conformance --stdio "node dist/cli/zodexd.js"
//   npx zodex-conformance --url http://127.0.0.1:7391/mcp [--header "Authorization: Bearer T"]
//   ... --workspace DIR     every scratch folder is made under DIR (on the server's machine), and
//                           helper commands run there: for a server confined to a folder
//   ... --profile P[,P]     portable (the default: the three tools' contract), zodex-surface
//                           (zodex's own instructions, descriptions, error codes, extra fields),
//                           zodexd (zodexd's own end-to-end requirements), or all
//   ... --protocol modern   the suite's client speaks MCP 2026-07-28 (per-request _meta, no
//                           initialize); legacy (the default) speaks 2025-11-25
//
// Requirements that need to start the server with particular flags, or to look at its process
// from outside, only run against a zodex checkout's own zodexd (npm test); here they are n/a.

import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const installed = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROFILES = ['portable', 'zodex-surface', 'zodexd'];

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
const usage =
  'usage: zodex-conformance --stdio "CMD ARGS" | --url URL [--header "K: V"]... [--workspace DIR] [--profile portable|zodex-surface|zodexd|all] [--protocol legacy|modern] [--workers N] [--grep PATTERN]';
const quoted = (value) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
function fail(message) {
  console.error(`zodex-conformance: ${message}\n${usage}`);
  process.exit(2);
}

let flags;
try {
  ({ values: flags } = parseArgs({
    options: {
      stdio: { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      workspace: { type: 'string' },
      profile: { type: 'string', default: 'portable' },
      protocol: { type: 'string', default: 'legacy' },
      workers: { type: 'string' },
      grep: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (flags.help) {
  console.log(usage);
  process.exit(0);
}
if (Boolean(flags.stdio) === Boolean(flags.url)) fail('give exactly one of --stdio or --url');
if (!['legacy', 'modern'].includes(flags.protocol))
  fail(`--protocol must be legacy (MCP 2025-11-25) or modern (MCP 2026-07-28), not ${quoted(flags.protocol)}`);
const profiles = flags.profile === 'all' ? PROFILES : flags.profile.split(',');
const unknown = profiles.find((profile) => !PROFILES.includes(profile));
if (unknown !== undefined) fail(`--profile takes ${PROFILES.join(', ')} or all (comma-separated), not ${quoted(unknown)}`);
// The workspace is a folder on the server's machine: it must be absolute and quotable as shell
// text; whether it exists is for the server to say (the first scratch folder fails, naming it).
if (flags.workspace !== undefined && (!path.posix.isAbsolute(flags.workspace) || /['\n\0]/.test(flags.workspace))) {
  fail(`--workspace must be an absolute path without quotes or newlines, not ${quoted(flags.workspace)}`);
}
if (flags.workers !== undefined && !/^[1-9]\d{0,2}$/.test(flags.workers)) fail(`--workers must be a whole number from 1, not ${quoted(flags.workers)}`);

const results = process.env.ZODEX_CONFORMANCE_RESULTS || fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conformance-'));
const env = {
  ...process.env,
  ZODEX_CONFORMANCE_TARGET: `${flags.stdio ? 'remote-stdio' : 'remote-http'}${flags.protocol === 'modern' ? '-modern' : ''}`,
  ZODEX_CONFORMANCE_RESULTS: results,
  ZODEX_CONFORMANCE_PRINT: '1',
  ZODEX_CONFORMANCE_PROFILES: profiles.join(','),
  // One project holds this server to everything it can run, in whichever era it speaks.
  ZODEX_CONFORMANCE_ALL_ERAS: '1',
  ...(flags.workspace ? { ZODEX_CONFORMANCE_WORKSPACE: flags.workspace.replace(/(.)\/+$/, '$1') } : {}),
  ...(flags.stdio
    ? { ZODEX_CONFORMANCE_STDIO: flags.stdio }
    : { ZODEX_CONFORMANCE_URL: flags.url, ZODEX_CONFORMANCE_HEADERS: (flags.header ?? []).join('\n') }),
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
