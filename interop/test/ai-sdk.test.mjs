// @ts-check
// The AI SDK's MCP client (@ai-sdk/mcp 2.0.99, Node 22) probes server/discover first and falls
// back to initialize only on a non-modern answer: against zodexd it must stay modern (no
// initialize sent) over stdio and HTTP, and run exec_command.

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { INTEROP, NODE22, ZODEXD, run, startZodexHttp } from '../lib/clients.mjs';

for (const transport of ['stdio', 'http']) {
  // Over stdio the client gives the spawned zodexd 1 s (DEFAULT_PROTOCOL_DISCOVERY_TIMEOUT) to
  // answer its server/discover probe: zodexd answers it from its stdio front, before the SDK,
  // the tools and the runtime load (bench/startup.mjs), so no fallback is allowed either.
  test(`AI SDK MCP client over ${transport}: speaks 2026-07-28 (no initialize fallback), and runs exec_command`, async () => {
    const server = transport === 'http' ? await startZodexHttp(['--mode', 'sprite']) : undefined;
    try {
      const marker = `ai-sdk-${transport}-${process.pid}`;
      const target = server ? [server.url] : [process.execPath, ZODEXD, '--mode', 'sprite'];
      const out = await run(NODE22, [path.join(INTEROP, 'lib/ai-sdk-client.mjs'), ...target], {
        cwd: INTEROP,
        env: { ...process.env, MARKER: marker },
        timeoutMs: 60_000,
      });
      assert.equal(out.code, 0, `${out.stdout}\n${out.stderr}`);
      const report = JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}');
      if (transport === 'stdio') {
        assert.equal(report.sent[0], 'server/discover');
        assert.ok(!report.sent.includes('initialize'), `the client fell back: ${report.sent}`);
      } else {
        assert.match(server?.stderr() ?? '', /MCP 2026-07-28 request from "ai-sdk-interop [\d.]+" /);
      }
      assert.equal(report.era, 'modern', JSON.stringify(report));
      assert.equal(report.version, '2026-07-28');
      assert.equal(report.result.resultType, 'complete');
      assert.deepEqual(report.tools, ['exec_command', 'write_stdin', 'apply_patch']);
      assert.equal(report.result.structuredContent.output, `${marker}\n`);
    } finally {
      await server?.stop();
    }
  });
}
