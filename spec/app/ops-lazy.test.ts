// The ops feature is optional (issue 24): a zodexd without --ops-listen never loads prom-client or
// src/features/, so Sprite mode pays nothing for it. Shown by the modules a zodexd had loaded
// when it exited (a --require hook lists require.cache), with the flag as the control.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ZODEXD = path.resolve(import.meta.dirname, '../../dist/cli/zodexd.js');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-ops-lazy-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`;

// The CommonJS modules a stdio zodexd (Sprite mode) had loaded once it answered initialize and stdin closed.
function loadedModules(extra: string[]): Promise<string[]> {
  const out = path.join(scratch, `loaded-${extra.length}.json`);
  const hook = path.join(scratch, `hook-${extra.length}.cjs`);
  fs.writeFileSync(hook, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', hook, ZODEXD, '--mode', 'sprite', '--state-dir', scratch, ...extra], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.on('error', reject);
    child.stdout.on('data', () => child.stdin.end()); // the answer came: everything zodexd loads at start is in
    child.on('exit', () => resolve(JSON.parse(fs.readFileSync(out, 'utf8')) as string[]));
    child.stdin.write(INITIALIZE);
  });
}

describe('the ops feature loads only when asked for', () => {
  it('leaves prom-client unloaded without --ops-listen, and loads it with the flag', async () => {
    const [without, withFlag] = await Promise.all([loadedModules([]), loadedModules(['--ops-listen', '127.0.0.1:0'])]);
    const promClient = (modules: string[]) => modules.some((file) => file.includes(`${path.sep}node_modules${path.sep}prom-client${path.sep}`));
    expect(without.length).toBeGreaterThan(10); // better-sqlite3, node-pty... were loaded: the hook works
    expect(promClient(without)).toBe(false);
    expect(promClient(withFlag)).toBe(true);
  }, 30_000);
});
