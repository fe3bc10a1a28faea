#!/usr/bin/env node
// @ts-check
// The layer rule of src/, measured from the code: every relative import (import/export … from,
// import(), require) is read with TypeScript's own pre-processor, each file is mapped to the layer
// of its top-level folder, and checkGraph() lists each import that runs upward or sideways and
// each circle between folders. Run: `node scripts/check-layers.mjs` (exit 1 on a violation).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// Top to bottom; folders on one line are siblings and may not import each other. '.' is the
// root files (errors.ts, fsutil.ts, native.ts). The README's layout section shows the same order.
export const LAYERS = [
  ['cli'],
  ['app'],
  ['features/ops'], // optional features behind seams the core declares; no core folder imports them
  ['transport', 'features/liveboard', 'liveboard'],
  ['server', 'features/oauth', 'oauth'],
  ['tools'],
  ['features/bounds'],
  ['exec', 'patch', 'features/context', 'context', 'features/publisher', 'publisher'],
  ['bounds'],
  ['features/store', 'store'],
  ['features/shared'],
  ['net'],
  ['.'],
];

/** @param {string} file a path relative to src/, with '/' separators */
export function layerFolder(file) {
  const parts = file.split('/');
  if (parts.length === 1) return '.';
  return parts[0] === 'features' && parts.length > 2 ? `features/${parts[1]}` : parts[0];
}

/** @param {string} folder @returns {number | undefined} */
function rank(folder) {
  const at = LAYERS.findIndex((line) => line.includes(folder));
  return at === -1 ? undefined : at;
}

/** @param {string} file */
function directory(file) {
  const dir = path.posix.dirname(file);
  return dir === '' ? '.' : dir;
}

/**
 * The violations of a graph of imports between files (paths relative to src/).
 * @param {ReadonlyArray<{ from: string, to: string }>} edges
 * @returns {string[]} one line per upward or sideways import, unknown folder and folder circle
 */
export function checkGraph(edges) {
  /** @type {string[]} */
  const problems = [];
  /** @type {Map<string, Set<string>>} */
  const folders = new Map();
  for (const { from, to } of edges) {
    const [a, b] = [layerFolder(from), layerFolder(to)];
    const [ra, rb] = [rank(a), rank(b)];
    for (const [folder, r] of [[a, ra], [b, rb]]) {
      if (r === undefined) problems.push(`${from} -> ${to}: folder src/${folder}/ is in no layer (add it to LAYERS in scripts/check-layers.mjs and the README)`);
    }
    if (ra !== undefined && rb !== undefined && a !== b && rb <= ra) {
      const how = rb === ra ? 'sideways, between siblings' : 'upward';
      problems.push(`${from} -> ${to}: imports ${how} (${a} may only import layers below it)`);
    }
    const [da, db] = [directory(from), directory(to)];
    if (da !== db) {
      if (!folders.has(da)) folders.set(da, new Set());
      folders.get(da)?.add(db);
    }
  }
  for (const circle of folderCircles(folders)) {
    const inside = circle.flatMap((a) => [...(folders.get(a) ?? [])].filter((b) => circle.includes(b)).map((b) => `${a} -> ${b}`));
    problems.push(`circle between folders ${circle.join(', ')} (${inside.join('; ')})`);
  }
  return [...new Set(problems)];
}

// Tarjan's strongly connected components of the folder graph; each with more than one folder
// is a circle.
/** @param {Map<string, Set<string>>} graph @returns {string[][]} */
function folderCircles(graph) {
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
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
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
  console.error(problems.length === 0 ? 'layers: no upward import, no circle between folders' : `layers: ${problems.length} violation(s)`);
  process.exit(problems.length === 0 ? 0 : 1);
}
