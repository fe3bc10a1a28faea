// interop/install.mjs: `npm ci` of interop/'s clients only when node_modules does not already
// hold that lockfile's install, and a wait for (and the failure of) CI's background install.
// Run on a copy of the script in a scratch folder with a dependency-free package, so npm ci is
// quick and offline.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-interop-install-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function setUp(version: string): void {
  const pkg = { name: 'fake-interop', version, private: true };
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify(pkg));
  fs.writeFileSync(path.join(scratch, 'package-lock.json'), JSON.stringify({ ...pkg, lockfileVersion: 3, requires: true, packages: { '': pkg } }));
}

function install(env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|ZODEX_INTEROP_)/i.test(name)));
  return spawnSync(process.execPath, [path.join(scratch, 'install.mjs')], { cwd: scratch, env: { ...clean, ...env }, encoding: 'utf8' });
}

it('runs npm ci once per lockfile, again when it changes, and waits for a background install', () => {
  fs.copyFileSync(path.join(repo, 'interop/install.mjs'), path.join(scratch, 'install.mjs'));
  setUp('1.0.0');
  const first = install();
  expect(first.status, first.stderr).toBe(0);
  expect(first.stderr).not.toMatch(/skipped/);
  const stamp = path.join(scratch, 'node_modules/.zodex-install-stamp');
  expect(fs.existsSync(stamp)).toBe(true);
  const marker = path.join(scratch, 'node_modules/kept-unless-npm-ci-runs');
  fs.writeFileSync(marker, '');

  const again = install();
  expect(again.status).toBe(0);
  expect(again.stderr).toMatch(/already installed from this lockfile \(npm ci skipped\)/);
  expect(fs.existsSync(marker)).toBe(true);

  setUp('1.0.1'); // another lockfile: npm ci runs (and replaces node_modules)
  const changed = install();
  expect(changed.status, changed.stderr).toBe(0);
  expect(fs.existsSync(marker)).toBe(false);

  const status = path.join(scratch, 'status');
  const log = path.join(scratch, 'log');
  fs.writeFileSync(log, 'npm error network unreachable\n');
  fs.writeFileSync(status, '1\n');
  const failed = install({ ZODEX_INTEROP_INSTALL_STATUS: status, ZODEX_INTEROP_INSTALL_LOG: log });
  expect(failed.status).not.toBe(0);
  expect(failed.stderr).toMatch(/background interop install failed \(exit 1\)[\s\S]*network unreachable/);

  fs.writeFileSync(status, ''); // still running: it finishes 1.5 s later, and the install waits for it
  const started = Date.now();
  const late = spawnSync(
    'sh',
    ['-c', `(sleep 1.5; echo 0 > ${JSON.stringify(status)}) & exec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(scratch, 'install.mjs'))}`],
    {
      cwd: scratch,
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))), ZODEX_INTEROP_INSTALL_STATUS: status },
      encoding: 'utf8',
    },
  );
  expect(late.status, late.stderr).toBe(0);
  expect(late.stderr).toMatch(/npm ci skipped/);
  expect(Date.now() - started).toBeGreaterThan(1_400);
}, 120_000);
