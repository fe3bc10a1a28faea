// @ts-check
// Codex 0.171.0's own apply_patch against the cases zodex pins as Codex's results
// (spec/patch/codex-cases.json): each case's `codex` part (exit status, stdout on success, the
// tree after) must be what the real Codex does. Then both engines take the same generated patches
// (small files of few distinct lines, LF/CRLF/lone-CR endings, chunks with and without @@ headers,
// empty last lines, *** End of File) and must agree, except where zodex refuses an ambiguous
// chunk (Codex takes the first match) or accepts what Codex refuses (chunks out of order).
// The native `codex` binary runs apply_patch when invoked under that name (its arg0 dispatch),
// so a symlink named apply_patch is enough.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { INTEROP, REPO, scratch } from '../lib/clients.mjs';

const { cases } = JSON.parse(fs.readFileSync(path.join(REPO, 'spec/patch/codex-cases.json'), 'utf8'));

// The platform package's native binary: node_modules/@openai/codex-<platform>/vendor/<triple>/bin/codex.
function nativeCodex() {
  const scope = path.join(INTEROP, 'node_modules/@openai');
  for (const pkg of fs.readdirSync(scope).filter((name) => name.startsWith('codex-'))) {
    const vendor = path.join(scope, pkg, 'vendor');
    for (const triple of fs.existsSync(vendor) ? fs.readdirSync(vendor) : []) {
      const binary = path.join(vendor, triple, 'bin/codex');
      if (fs.existsSync(binary)) return binary;
    }
  }
  throw new Error(`no native codex binary under ${scope}: run npm run test:interop's install first`);
}

/** @param {string} root @returns {Record<string, string>} */
function readTree(root) {
  /** @type {Record<string, string>} */
  const files = {};
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full)] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return files;
}

test('every case of spec/patch/codex-cases.json is what Codex 0.171.0 apply_patch does', () => {
  const space = scratch('codex-apply-patch');
  try {
    const applyPatch = path.join(space.dir, 'apply_patch');
    fs.symlinkSync(nativeCodex(), applyPatch);
    /** @type {string[]} */
    const mismatches = [];
    cases.forEach((/** @type {any} */ c, /** @type {number} */ i) => {
      const dir = path.join(space.dir, String(i));
      fs.mkdirSync(dir);
      for (const [file, content] of Object.entries(c.input)) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), /** @type {string} */ (content));
      }
      const run = spawnSync(applyPatch, [c.patch], { cwd: dir, encoding: 'utf8', env: { ...process.env, RUST_BACKTRACE: '0' } });
      const got = { ok: run.status === 0, ...(run.status === 0 ? { stdout: run.stdout } : {}), tree: readTree(dir) };
      const want = { ok: c.codex.ok, ...(c.codex.stdout !== undefined ? { stdout: c.codex.stdout } : {}), tree: c.codex.tree };
      try {
        assert.deepEqual(got, want);
      } catch {
        mismatches.push(`${c.name}: Codex gave ${JSON.stringify(got)} (stderr ${JSON.stringify(run.stderr)}), the data says ${JSON.stringify(want)}`);
      }
    });
    assert.deepEqual(mismatches, [], `${mismatches.length} of ${cases.length} cases are not what Codex does`);
  } finally {
    space.remove();
  }
});

// A small deterministic generator (linear congruential), so a failure names a reproducible seed.
/** @param {number} seed */
function generator(seed) {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  /** @template T @param {readonly T[]} items @returns {T} */
  const pick = (items) => /** @type {T} */ (items[Math.floor(next() * items.length)]);
  return { next, pick };
}

const TEXTS = ['a', 'b', 'c', '', 'a ', ' a', 'x'];
const EOLS = ['\n', '\n', '\n', '\r\n', '\r'];

/** One generated Update patch and the file it applies to. @param {number} seed */
function generatedCase(seed) {
  const { next, pick } = generator(seed);
  const lines = Array.from({ length: Math.floor(next() * 6) }, () => ({ text: pick(TEXTS), eol: pick(EOLS) }));
  if (lines.length > 0 && next() < 0.2) lines[lines.length - 1].eol = '';
  const body = [];
  for (let n = next() < 0.3 ? 2 : 1; n > 0; n--) {
    const header = next() < 0.3 ? (lines.length > 0 && next() < 0.8 ? pick(lines).text : pick(TEXTS)) : undefined;
    const start = Math.floor(next() * (lines.length + 1));
    const chunk = [];
    for (const line of lines.slice(start, start + Math.floor(next() * 3))) {
      const roll = next();
      if (roll < 0.5) chunk.push(` ${line.text}`);
      else chunk.push(`-${line.text}`, ...(roll < 0.8 ? [] : [`+${pick(TEXTS)}`]));
      if (next() < 0.15) chunk.push(`+${pick(TEXTS)}`);
    }
    if (next() < 0.2) chunk.push(`+${pick(TEXTS)}`);
    if (next() < 0.15) chunk.push(pick(['-', ' ', '+']));
    if (next() < 0.1) chunk.push(pick(['-', ' ', '+']));
    if (chunk.length === 0) chunk.push(`+${pick(TEXTS)}`);
    body.push(header === undefined ? '@@' : `@@ ${header}`, ...chunk, ...(next() < 0.15 ? ['*** End of File'] : []));
  }
  return {
    content: lines.map((line) => line.text + line.eol).join(''),
    patch: ['*** Begin Patch', '*** Update File: f.txt', ...body, '*** End Patch'].join('\n'),
  };
}

test('zodex and Codex 0.171.0 agree on 400 generated patches, but for ambiguity and chunks out of order', async (t) => {
  const { applyPatch, formatPatchReport } = await import(pathToFileURL(path.join(REPO, 'dist/patch/index.js')).href);
  const space = scratch('codex-apply-patch-generated');
  try {
    const codexApply = path.join(space.dir, 'apply_patch');
    fs.symlinkSync(nativeCodex(), codexApply);
    /** @type {Record<string, number>} */
    const tally = {};
    /** @type {string[]} */
    const disagreements = [];
    for (let seed = 1; seed <= 400; seed++) {
      const { content, patch } = generatedCase(seed);
      const codexDir = path.join(space.dir, `c${seed}`);
      const zodexDir = path.join(space.dir, `z${seed}`);
      for (const dir of [codexDir, zodexDir]) {
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, 'f.txt'), content);
      }
      const run = spawnSync(codexApply, [patch], { cwd: codexDir, encoding: 'utf8', env: { ...process.env, RUST_BACKTRACE: '0' } });
      const codex = { ok: run.status === 0, text: run.stdout, tree: readTree(codexDir) };
      let zodex;
      try {
        const report = formatPatchReport(await applyPatch(patch, zodexDir));
        zodex = { ok: !report.isError, text: report.text, tree: readTree(zodexDir) };
      } catch (error) {
        zodex = { ok: false, text: String(error), tree: readTree(zodexDir) };
      }
      let outcome;
      if (codex.ok && zodex.ok) outcome = JSON.stringify(codex) === JSON.stringify(zodex) ? 'same result' : 'different results';
      else if (!codex.ok && !zodex.ok) outcome = 'both refuse';
      else if (codex.ok) outcome = /AMBIGUOUS_CONTEXT/.test(zodex.text) ? 'zodex refuses an ambiguous chunk' : 'zodex refuses what Codex applies';
      else outcome = 'zodex applies what Codex refuses';
      tally[outcome] = (tally[outcome] ?? 0) + 1;
      if (outcome === 'different results' || outcome === 'zodex refuses what Codex applies') {
        disagreements.push(
          `seed ${seed}: ${outcome}; file ${JSON.stringify(content)}, patch ${JSON.stringify(patch)}: Codex ${JSON.stringify(codex)}, zodex ${JSON.stringify(zodex)}`,
        );
      }
    }
    t.diagnostic(JSON.stringify(tally));
    assert.deepEqual(disagreements, [], JSON.stringify(tally));
    assert.ok((tally['same result'] ?? 0) > 200, `too few patches applied by both: ${JSON.stringify(tally)}`);
  } finally {
    space.remove();
  }
});
