#!/usr/bin/env node
// zodex-conformance: runs the conformance suite against any implementation of the zodex tool
// surface, over stdio (a command to spawn) or streamable HTTP (a URL), and prints one line per
// requirement and a total. Exits 0 when every applicable requirement passes, 1 otherwise.
//
//   npx zodex-conformance --stdio "node dist/cli/zodexd.js"
//   npx zodex-conformance --url http://127.0.0.1:7391/mcp [--header "Authorization: Bearer T"]
//
// Requirements that need to start the server with particular flags, or to look at its process
// from outside, only run against this checkout's own zodexd (npm test); here they are listed
// as not applicable.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const usage = 'usage: zodex-conformance --stdio "CMD ARGS" | --url URL [--header "K: V"]... [--workers N] [--grep PATTERN]';

let flags;
try {
  ({ values: flags } = parseArgs({
    options: {
      stdio: { type: 'string' },
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
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

const results = process.env.ZODEX_CONFORMANCE_RESULTS || fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conformance-'));
const env = {
  ...process.env,
  ZODEX_CONFORMANCE_TARGET: flags.stdio ? 'remote-stdio' : 'remote-http',
  ZODEX_CONFORMANCE_RESULTS: results,
  ZODEX_CONFORMANCE_PRINT: '1',
  ...(flags.stdio ? { ZODEX_CONFORMANCE_STDIO: flags.stdio } : { ZODEX_CONFORMANCE_URL: flags.url, ZODEX_CONFORMANCE_HEADERS: (flags.header ?? []).join('\n') }),
  ...(flags.workers ? { ZODEX_CONFORMANCE_WORKERS: flags.workers } : {}),
};
const playwright = path.join(root, 'node_modules/@playwright/test/cli.js');
const args = [playwright, 'test', '-c', path.join(root, 'conformance/playwright.config.ts'), '--reporter', path.join(root, 'conformance/harness/table-reporter.ts')];
if (flags.grep) args.push('--grep', flags.grep);
const run = spawnSync(process.execPath, args, { env, stdio: 'inherit', cwd: root });
console.log(`table: ${path.join(results, 'requirements.md')}`);
process.exit(run.status === 0 ? 0 : 1);
