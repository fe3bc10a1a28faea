// A package-lock.json for an empty folder that installs a packed workspace package (the conformance
// suite's tarball), made from this checkout's lockfile: the package's production dependencies and
// theirs, at the versions and integrity the checkout has, so `npm ci --offline` installs them from
// npm's cache (no registry; npm ci here filled the cache).
//
//   node spec/package/offline-lock.mjs CHECKOUT WORKSPACE_DIR TARBALL_RELATIVE_PATH > package-lock.json

import fs from 'node:fs';
import path from 'node:path';

// The lock entries a package at `from` (a lock key, '' for a top-level one) needs at run time:
// each dependency resolved as Node would, from the nearest node_modules outward.
function closure(lock, from, dependencies, into) {
  for (const name of Object.keys(dependencies ?? {})) {
    let key;
    for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf('/node_modules/')))) {
      const candidate = `${at ? `${at}/` : ''}node_modules/${name}`;
      if (lock.packages[candidate]) {
        key = candidate;
        break;
      }
      if (!at) break;
    }
    if (!key) throw new Error(`${name} (needed by ${from || 'the package'}) is not in the lockfile`);
    if (into.has(key)) continue;
    into.add(key);
    const entry = lock.packages[key];
    closure(lock, key, { ...entry.dependencies, ...entry.optionalDependencies }, into);
  }
  return into;
}

export function offlineLock(checkout, workspace, tarball) {
  const lock = JSON.parse(fs.readFileSync(path.join(checkout, 'package-lock.json'), 'utf8'));
  const pkg = JSON.parse(fs.readFileSync(path.join(checkout, workspace, 'package.json'), 'utf8'));
  const spec = `file:${tarball}`;
  const packages = { '': { name: 'packed-suite', dependencies: { [pkg.name]: spec } } };
  packages[`node_modules/${pkg.name}`] = {
    version: pkg.version,
    resolved: spec,
    license: pkg.license,
    dependencies: pkg.dependencies,
    bin: pkg.bin,
    engines: pkg.engines,
  };
  for (const key of [...closure(lock, '', pkg.dependencies, new Set())].sort()) {
    const { dev, peer, devOptional, ...entry } = lock.packages[key];
    packages[key] = entry;
  }
  return { name: 'packed-suite', lockfileVersion: 3, requires: true, packages };
}

export function packageJson(name, tarball) {
  return { name: 'packed-suite', private: true, dependencies: { [name]: `file:${tarball}` } };
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  process.stdout.write(`${JSON.stringify(offlineLock(process.argv[2], process.argv[3], process.argv[4]), null, 2)}\n`);
}
