// zodexd's start over stdio (issue 15): server/discover is answered by the stdio front before
// the runtime exists, so a client's 1 s probe does not wait for the SDK, the tools or the store.
// Shown by a start whose runtime fails (no PTY helper): the probe is answered, then exit 1.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ZODEXD = path.resolve(import.meta.dirname, '../../dist/cli/zodexd.js');
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function run(args: string[], input: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [ZODEXD, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.write(input); // left open: the start must fail on its own
  });
}

describe('zodexd over stdio, before its runtime', () => {
  it('answers server/discover even when the runtime then fails to start', async () => {
    const probe = `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: META } })}\n`;
    const initialize = `${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;
    const { code, stdout, stderr } = await run(['--mode', 'sprite'], probe + initialize, { ZODEX_SPAWN_HELPER: '/nonexistent/zodex-spawn' });
    expect(code).toBe(1);
    expect(stderr).toMatch(/the PTY helper \/nonexistent\/zodex-spawn is missing/);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    // Only the probe: initialize needs the conversation, which never came to be.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ id: 7, result: { supportedVersions: ['2026-07-28'], resultType: 'complete' } });
  }, 30_000);
});

describe("zodexd's log lines", () => {
  it('show a known secret as [REDACTED:NAME], from the first line after the flags are read', async () => {
    const TOKEN = 'startup-log-token-0123456789abcdef';
    const probe = `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: { ...META, 'io.modelcontextprotocol/clientInfo': { name: `client-${TOKEN}`, version: '1' } } } })}\n`;
    const { stderr } = await run(['--mode', 'sprite'], probe, { ZODEX_SPAWN_HELPER: '/nonexistent/zodex-spawn', ZODEX_AUTH_TOKEN: TOKEN });
    expect(stderr).toContain('request from "client-[REDACTED:ZODEX_AUTH_TOKEN] 1" ("server/discover")');
    expect(stderr).not.toContain(TOKEN);
  }, 30_000);
});
