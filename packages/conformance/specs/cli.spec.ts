// Seed 003's flag rules: every refused combination exits 2 with one line on stderr that names
// the flag and the fix, and prints nothing on stdout. On a terminal zodexd says what it waits
// for; `npm start` puts nothing but protocol on stdout.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, requirement } from '../harness/fixtures.js';
import { runZodexd } from '../harness/process.js';
import { REPO_ROOT, ZODEXD } from '../harness/target.js';

// A config file whose only section is misspelt: refused, not silently ignored. Written by the
// test that uses it, in its own output folder (this module is loaded by every worker).
const MISSPELT_CONFIG = 'misspelt-config.json';

const REFUSED: { args: string[]; env?: Record<string, string>; mentions: RegExp }[] = [
  { args: ['--listen', '127.0.0.1:7391'], mentions: /--listen.*--transport http/ },
  { args: ['--transport', 'stdio', '--allow-host', 'host.docker.internal'], mentions: /--allow-host.*--transport http/ },
  { args: ['--transport', 'http', '--listen', '0.0.0.0:7391'], mentions: /--listen 0\.0\.0\.0:7391.*wildcard/ },
  { args: ['--transport', 'http', '--listen', '[::]:7391'], mentions: /wildcard/ },
  { args: ['--transport', 'http', '--listen', ':7391'], mentions: /wildcard/ },
  { args: ['--transport', 'http', '--allow-host', 'host.docker.internal:7391'], mentions: /--allow-host.*without a port.*--allow-host host\.docker\.internal/ },
  { args: ['--transport', 'carrier-pigeon'], mentions: /--transport "carrier-pigeon".*stdio, http/ },
  { args: ['--mode', 'remote'], mentions: /--mode "remote".*local, sprite/ },
  { args: ['--max-exec-timeout-ms', 'soon'], mentions: /--max-exec-timeout-ms "soon".*whole number/ },
  { args: ['--no-such-flag'], mentions: /no-such-flag/ },
  { args: [], env: { ZODEX_TRANSPORT: 'ftp' }, mentions: /ZODEX_TRANSPORT="ftp" is not one of stdio, http; write e.g. ZODEX_TRANSPORT=stdio/ },
  {
    args: ['--transport', 'http'],
    env: { ZODEX_LISTEN: '0.0.0.0:7391' },
    mentions: /ZODEX_LISTEN=0\.0\.0\.0:7391 is a wildcard bind.*ZODEX_LISTEN=127\.0\.0\.1:7391/,
  },
  { args: ['--config', MISSPELT_CONFIG], mentions: /unknown key "contxt" \(did you mean "context"\?\)/ },
];

requirement('cli.refusals', async ({}, testInfo) => {
  const config = testInfo.outputPath(MISSPELT_CONFIG);
  fs.mkdirSync(path.dirname(config), { recursive: true });
  fs.writeFileSync(config, JSON.stringify({ contxt: { global: false } }));
  for (const { args: given, env, mentions } of REFUSED) {
    const args = given.map((arg) => (arg === MISSPELT_CONFIG ? config : arg));
    const { code, stdout, stderr } = await runZodexd(args, env);
    const label = `zodexd ${args.join(' ')} ${JSON.stringify(env ?? {})}`;
    expect(code, label).toBe(2);
    expect(stdout, label).toBe('');
    expect(stderr.trimEnd().split('\n'), label).toHaveLength(1);
    expect(stderr, label).toMatch(mentions);
  }
});

requirement('cli.terminal-hint', async ({}, testInfo) => {
  // stdin a terminal, stdout and stderr files: what a person sees, and what reaches stdout.
  const pty = await import('node-pty');
  const out = testInfo.outputPath('stdout.txt');
  const err = testInfo.outputPath('stderr.txt');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const term = pty.spawn('/bin/sh', ['-c', `exec "$0" "$1" >"$2" 2>"$3"`, process.execPath, ZODEXD, out, err], {
    cols: 200,
    rows: 50,
    env: process.env as Record<string, string>,
  });
  const exited = new Promise<number>((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  await expect.poll(() => (fs.existsSync(err) ? fs.readFileSync(err, 'utf8') : ''), { timeout: 20_000 }).toContain('--transport http');
  term.write('\u0004'); // Ctrl-D: stdin ends, zodexd exits
  expect(await exited).toBe(0);
  const stderr = fs.readFileSync(err, 'utf8');
  expect(stderr).toMatch(/waiting for an MCP client to send JSON-RPC on stdin/);
  expect(stderr).toContain(`"command":"node","args":["${ZODEXD}"]`);
  expect(fs.readFileSync(out, 'utf8')).toBe('');
  // Not a terminal (a client spawned it): no hint.
  const { stderr: piped } = await runZodexd([]);
  expect(piped).not.toContain('waiting for an MCP client');
});

requirement('cli.npm-start-protocol-only', async () => {
  // A client configured with `npm start`: every line on stdout must be JSON-RPC.
  // Without the npm_config_* an outer npm run may export: only the checkout's .npmrc counts.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
  const child = spawn('npm', ['start'], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
  );
  await expect.poll(() => stdout.includes('"id":1'), { timeout: 30_000, message: `stderr: ${stderr}` }).toBe(true);
  child.stdin.end();
  expect(await exited).toBe(0);
  const lines = stdout.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) expect(() => JSON.parse(line), JSON.stringify(line)).not.toThrow();
  expect(JSON.parse(lines[0]!)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'zodex' } } });
});
