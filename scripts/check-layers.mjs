#!/usr/bin/env node
// @ts-check
// The layer rule of src/, measured from the code: every relative import (import/export … from,
// import(), require) is read with TypeScript's own pre-processor, each file is mapped to its part
// (a core folder, a feature under src/features/, or the composition root), and checkGraph() lists
// each import that crosses a line it may not: upward or sideways in the core, from the core into a
// feature, from a feature into a feature it does not declare or into the composition root; and
// each circle, between folders and between the files of one folder (also type-only).
// Run: `node scripts/check-layers.mjs` (exit 1 on a violation).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The composition root, top to bottom: it builds the process and wires the features into the
// core's seams, and may import anything below it.
export const ROOT = [['cli'], ['app']];

// The core, top to bottom; folders on one line are siblings and may not import each other. '.' is
// the root files (errors.ts, fsutil.ts, native.ts...). The core imports no feature.
export const CORE = [['transport'], ['server'], ['tools'], ['exec', 'patch'], ['bounds', 'net', 'wire'], ['.']];

// The optional features (src/features/NAME), behind the seams the core declares: each may import
// the core, and of the other features only those named here (its declared lines).
export const FEATURES = {
  'features/bounds': ['features/publisher'], // asks the publisher its mode, masks its socket and token
  'features/context': [],
  'features/liveboard': ['features/store', 'features/shared'],
  'features/oauth': ['features/store', 'features/shared'],
  'features/ops': [],
  'features/publisher': ['features/store', 'features/shared'],
  'features/shared': [], // what more than one feature uses: browser-page rules, JSON-lines sockets
  'features/store': [],
};

// Every part, top to bottom, for the messages and the README's layout section.
export const LAYERS = [...ROOT, Object.keys(FEATURES), ...CORE];

/** @param {string} file a path relative to src/, with '/' separators */
export function layerFolder(file) {
  const parts = file.split('/');
  if (parts.length === 1) return '.';
  return parts[0] === 'features' && parts.length > 2 ? `features/${parts[1]}` : parts[0];
}

/** @param {string} folder */
const isFeature = (folder) => Object.hasOwn(FEATURES, folder);

// Where a folder stands: its line in the composition root or the core, or 'feature'.
/** @param {string} folder @returns {{ part: 'root' | 'core', rank: number } | { part: 'feature' } | undefined} */
function place(folder) {
  if (isFeature(folder)) return { part: 'feature' };
  const root = ROOT.findIndex((line) => line.includes(folder));
  if (root !== -1) return { part: 'root', rank: root };
  const core = CORE.findIndex((line) => line.includes(folder));
  return core === -1 ? undefined : { part: 'core', rank: core };
}

/** @param {string} file */
function directory(file) {
  const dir = path.posix.dirname(file);
  return dir === '' ? '.' : dir;
}

// Why an import from folder a to folder b (both placed, a !== b) crosses a line, or undefined.
/** @param {string} a @param {string} b @returns {string | undefined} */
function crossing(a, b) {
  const [pa, pb] = [place(a), place(b)];
  if (!pa || !pb) return undefined;
  if (pa.part === 'root') {
    if (pb.part !== 'root' || pb.rank > pa.rank) return undefined;
    return `imports ${pb.rank === pa.rank ? 'sideways, between siblings' : 'upward'} (${a} may only import layers below it)`;
  }
  if (pb.part === 'root') return `imports upward, into the composition root (src/${b}/ wires ${a}; ${a} may not import it)`;
  if (pa.part === 'core') {
    if (pb.part === 'feature') return `the core imports a feature (src/${a}/ may not import src/${b}/: declare a seam in the core and let app/ wire it)`;
    if (pb.rank > pa.rank) return undefined;
    return `imports ${pb.rank === pa.rank ? 'sideways, between siblings' : 'upward'} (${a} may only import layers below it)`;
  }
  if (pb.part === 'core') return undefined;
  const lines = FEATURES[/** @type {keyof typeof FEATURES} */ (a)];
  return lines.includes(b)
    ? undefined
    : `imports a feature it does not declare (add ${b} to ${a}'s lines in FEATURES in scripts/check-layers.mjs, or go through a seam)`;
}

/**
 * The violations of a graph of imports between files (paths relative to src/).
 * @param {ReadonlyArray<{ from: string, to: string }>} edges
 * @returns {string[]} one line per import that crosses a line, unknown folder, folder circle and file circle
 */
export function checkGraph(edges) {
  /** @type {string[]} */
  const problems = [];
  /** @type {Map<string, Set<string>>} */
  const folders = new Map();
  /** @type {Map<string, Set<string>>} */
  const files = new Map();
  for (const { from, to } of edges) {
    const [a, b] = [layerFolder(from), layerFolder(to)];
    for (const folder of [a, b]) {
      if (!place(folder))
        problems.push(
          `${from} -> ${to}: folder src/${folder}/ is in no layer (add it to CORE or FEATURES in scripts/check-layers.mjs and to docs/architecture.md)`,
        );
    }
    const why = a === b ? undefined : crossing(a, b);
    if (why) problems.push(`${from} -> ${to}: ${why}`);
    // A circle through several folders is found between folders; inside one, between its files.
    const [da, db] = [directory(from), directory(to)];
    const [graph, tail, head] = da !== db ? [folders, da, db] : [files, from, to];
    if (tail !== head) {
      if (!graph.has(tail)) graph.set(tail, new Set());
      graph.get(tail)?.add(head);
    }
  }
  for (const circle of circles(folders)) {
    const inside = circle.flatMap((a) => [...(folders.get(a) ?? [])].filter((b) => circle.includes(b)).map((b) => `${a} -> ${b}`));
    problems.push(`circle between folders ${circle.join(', ')} (${inside.join('; ')})`);
  }
  for (const circle of circles(files)) {
    const inside = circle.flatMap((a) => [...(files.get(a) ?? [])].filter((b) => circle.includes(b)).map((b) => `${a} -> ${b}`));
    problems.push(
      `circle between files ${circle.join(', ')} (${inside.join('; ')}): a type-only import counts too; move what they share into a file of its own`,
    );
  }
  return [...new Set(problems)];
}

// Tarjan's strongly connected components of a graph; each with more than one node is a circle.
/** @param {Map<string, Set<string>>} graph @returns {string[][]} */
function circles(graph) {
  /** @type {Map<string, number>} */ const index = new Map();
  /** @type {Map<string, number>} */ const low = new Map();
  /** @type {string[]} */ const stack = [];
  /** @type {Set<string>} */ const onStack = new Set();
  /** @type {string[][]} */ const circles = [];
  /** @param {string} node */
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    /** @type {string[]} */ const component = [];
    let member;
    do {
      member = stack.pop() ?? node;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return circles;
}

/** @param {string} dir @returns {string[]} */
function tsFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Every relative import between the .ts files under srcDir.
 * @param {string} srcDir
 * @returns {{ from: string, to: string }[]}
 */
export function readImportGraph(srcDir) {
  const edges = [];
  for (const file of tsFiles(srcDir)) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), fileName).replace(/\.js$/, '.ts');
      const rel = (/** @type {string} */ p) => path.relative(srcDir, p).split(path.sep).join('/');
      // Data outside src/ (../package.json) belongs to no layer.
      if (!rel(target).startsWith('../')) edges.push({ from: rel(file), to: rel(target) });
    }
  }
  return edges;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
  const problems = checkGraph(readImportGraph(src));
  for (const line of problems) console.error(line);
  console.error(
    problems.length === 0
      ? 'layers: no import across a line (core, features, composition root), no circle between folders or files'
      : `layers: ${problems.length} violation(s)`,
  );
  process.exit(problems.length === 0 ? 0 : 1);
}
