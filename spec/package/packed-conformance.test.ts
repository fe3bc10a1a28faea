// zodex-conformance from its packed package: `npm pack` of packages/conformance, install the tarball
// alone into an empty folder, run the installed runner against this checkout's zodexd over stdio. The install is
// `npm ci --offline --ignore-scripts` from a lockfile made of this checkout's (npm's cache holds
// every package since `npm ci`): no registry, and no native compile, which the runner does not need.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs helper without types
import { offlineLock, packageJson } from './offline-lock.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SUITE = 'packages/conformance'; // the zodex-conformance workspace package
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-packed-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }), 120_000);

it('runs from a tarball installed into an empty folder and passes against zodexd', () => {
  const npm = (args: string[], cwd: string) => execFileSync('npm', [...args, '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  npm(['pack', '--ignore-scripts', '--pack-destination', scratch], path.join(repo, SUITE));
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, SUITE, 'package.json'), 'utf8')) as { name: string; version: string };
  const tarball = `../${pkg.name}-${pkg.version}.tgz`;
  const folder = path.join(scratch, 'empty');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify(packageJson(pkg.name, tarball)));
  fs.writeFileSync(path.join(folder, 'package-lock.json'), JSON.stringify(offlineLock(repo, SUITE, tarball)));
  npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], folder);
  expect(fs.existsSync(path.join(folder, 'node_modules/zodex-conformance/requirements.ts'))).toBe(true);
  expect(fs.existsSync(path.join(folder, 'node_modules/zodex')), 'the suite installs without the server package').toBe(false);

  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|ZODEX_CONFORMANCE_)/i.test(name)));
  // One worker: this runs beside the other spec files, and the suite's timing tests want a core.
  env.ZODEX_CONFORMANCE_WORKERS = '1';
  // The installed suite has no ../shared beside it: point it at Codex's corpus (patch.corpus), which
  // ZODEX_NO_SKIP (CI) requires.
  env.ZODEX_CODEX_CORPUS ??= path.resolve(repo, '../shared/corpus/codex-apply-patch');
  const run = spawnSync('npx', ['--no-install', 'zodex-conformance', '--stdio', `node ${path.join(repo, 'dist/cli/zodexd.js')}`], { cwd: folder, env, encoding: 'utf8', timeout: 840_000 });
  const total = /^remote-stdio: (?:(\d+) n\/a, )?(\d+) passed$/m.exec(run.stdout);
  console.log(total?.[0]);
  const failed = run.stdout.split('\n').filter((line) => /^FAIL\b|✘/.test(line));
  expect(total, `failed:\n${failed.join('\n')}\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-4000)}`).not.toBeNull();
  expect(Number(total![2])).toBeGreaterThan(40);
  expect(run.stdout, `failed:\n${failed.join('\n')}\n${run.stderr.slice(-4000)}`).not.toMatch(/ failed/);
  expect(run.status).toBe(0);
}, 900_000);
