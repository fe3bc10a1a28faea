// A package-lock.json for an empty folder that installs a packed zodex tarball, made from this
// checkout's lockfile: every production package at the version and integrity the checkout has,
// so `npm ci --offline` installs it from npm's cache (no registry; npm ci here filled the cache).
//
//   node spec/package/offline-lock.mjs CHECKOUT TARBALL_RELATIVE_PATH > package-lock.json

import fs from 'node:fs';
import path from 'node:path';

export function offlineLock(checkout, tarball) {
  const lock = JSON.parse(fs.readFileSync(path.join(checkout, 'package-lock.json'), 'utf8'));
  const pkg = JSON.parse(fs.readFileSync(path.join(checkout, 'package.json'), 'utf8'));
  const spec = `file:${tarball}`;
  const packages = { '': { name: 'packed-zodex', dependencies: { [pkg.name]: spec } } };
  packages[`node_modules/${pkg.name}`] = {
    version: pkg.version,
    resolved: spec,
    license: pkg.license,
    dependencies: pkg.dependencies,
    bin: pkg.bin,
    engines: pkg.engines,
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === '' || entry.dev || entry.link) continue;
    packages[key] = entry;
  }
  return { name: 'packed-zodex', lockfileVersion: 3, requires: true, packages };
}

export function packageJson(name, tarball) {
  return { name: 'packed-zodex', private: true, dependencies: { [name]: `file:${tarball}` } };
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  process.stdout.write(`${JSON.stringify(offlineLock(process.argv[2], process.argv[3]), null, 2)}\n`);
}
