// Installs interop/'s own clients (`npm ci` from its lockfile, ~1 GB) unless interop/node_modules
// already holds exactly that install. Flow: a stamp (sha256 of package.json + package-lock.json
// and the Node version) is written into node_modules after a successful npm ci; a matching stamp
// skips it. CI starts this early in the background (.ci/run) and names a status file in
// ZODEX_INTEROP_INSTALL_STATUS: `npm run test:interop` then waits for that install instead of
// deleting and repeating it (or running a second npm ci in the same folder beside it).

import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const INTEROP = path.dirname(fileURLToPath(import.meta.url));
const STAMP = path.join(INTEROP, 'node_modules/.zodex-install-stamp');
const WAIT_MS = 15 * 60_000;

function wanted() {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(INTEROP, file)));
  return `${hash.digest('hex')} node ${process.version}\n`;
}

function installed() {
  try {
    return fs.readFileSync(STAMP, 'utf8') === wanted();
  } catch {
    return false;
  }
}

// A background install started by CI: wait for its exit status, fail with its reason.
/** @param {string} statusFile */
async function awaitBackground(statusFile) {
  const deadline = Date.now() + WAIT_MS;
  let status = '';
  while ((status = fs.readFileSync(statusFile, 'utf8').trim()) === '') {
    if (Date.now() > deadline) throw new Error('the background interop install did not finish within 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  if (status !== '0') {
    const log = process.env.ZODEX_INTEROP_INSTALL_LOG ? fs.readFileSync(process.env.ZODEX_INTEROP_INSTALL_LOG, 'utf8').slice(-6_000) : '';
    throw new Error(`the background interop install failed (exit ${status}):\n${log}`);
  }
}

const statusFile = process.argv[2] === '--background' ? undefined : process.env.ZODEX_INTEROP_INSTALL_STATUS;
if (statusFile) await awaitBackground(statusFile);
if (installed()) {
  console.error('interop: clients already installed from this lockfile (npm ci skipped)');
} else {
  fs.rmSync(STAMP, { force: true });
  const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: INTEROP, stdio: 'inherit' });
  if (npm.status !== 0) process.exit(npm.status ?? 1);
  fs.mkdirSync(path.dirname(STAMP), { recursive: true }); // npm ci makes none for a package without dependencies
  fs.writeFileSync(STAMP, wanted());
}
