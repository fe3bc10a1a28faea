#!/usr/bin/env node
// @ts-check
// Proves that moving the README's text into docs/ lost no fact: every flag, environment variable,
// error code, requirement id, code span, code-block line, link URL and figure (a word holding a
// digit) of README.md at BASE must appear in README.md or docs/**/*.md of the working tree.
// Flow: git show BASE:README.md -> facts by kind -> each looked up in today's text (whitespace
// collapsed) -> the missing ones listed, exit 1. Sentences are counted too (kept verbatim or not),
// as information: `--sentences` lists the reworded ones for a reader to check by eye.
// Run: `node scripts/docs-facts.mjs [BASE] [--sentences]` (BASE: main before the split, bc95c51).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const base = args.find((arg) => !arg.startsWith('--')) ?? 'bc95c51';
const before = execFileSync('git', ['show', `${base}:README.md`], { cwd: REPO, encoding: 'utf8' });

/** @param {string} dir @returns {string[]} */
function markdownFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(full) : entry.name.endsWith('.md') ? [full] : [];
  });
}

/** @param {string} text */
const flat = (text) => text.replace(/\s+/g, ' ');
const now = flat([path.join(REPO, 'README.md'), ...markdownFiles(path.join(REPO, 'docs'))].map((file) => fs.readFileSync(file, 'utf8')).join('\n'));

// The README's parts: fenced blocks (kept line by line), and prose (code spans taken out).
const blockLines = [];
const proseLines = [];
let fenced = false;
for (const line of before.split('\n')) {
  if (/^\s*```/.test(line)) fenced = !fenced;
  else if (fenced) blockLines.push(line.trim());
  else proseLines.push(line);
}
const prose = flat(proseLines.filter((line) => !/^#+ /.test(line)).join('\n'));
// ``a span holding `backticks` `` or `a span`
const SPAN = /``(.+?)``|`([^`]+)`/g;
const spans = [...prose.matchAll(SPAN)].map((match) => (match[1] ?? match[2]).trim());
const urls = [...prose.matchAll(/\]\((https?:[^)\s]+)\)/g)].map((match) => match[1]);
// Words of the prose outside code spans and link targets, edged punctuation trimmed.
const words = prose
  .replace(SPAN, ' ')
  .replace(/\]\([^)\s]*\)/g, ']')
  .split(' ')
  .map((word) => word.replace(/^[(\["'*_]+|[)\]"'*_,;:.!?]+$/g, ''));

/** @type {Record<string, string[]>} */
const facts = {
  'flags (--name)': [...before.matchAll(/(?<![\w-])--[a-z][a-z0-9-]+/g)].map((match) => match[0]),
  'environment variables': [...before.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+(?==)|\bZODEX_[A-Z0-9_]+|\b(?:XDG|CODEX|MCP|CLAUDE_CODE)_[A-Z_]+/g)].map((match) => match[0]),
  'error codes and other CONSTANT words': spans.filter((span) => /^[A-Z][A-Z0-9_]{3,}$/.test(span)),
  'requirement ids': spans.filter((span) => /^[a-z]+(?:-[a-z]+)*\.[a-z0-9-]+$/.test(span) && !/\.(?:md|ts|mjs|js|json|c|sh|yml|toml|txt|svg)$/.test(span)),
  'code spans': spans,
  'code-block lines': blockLines.filter((line) => line !== ''),
  'link URLs': urls,
  'figures (words holding a digit)': words.filter((word) => /\d/.test(word)),
};

// Facts of the old README that were wrong, each with what replaced it: gone on purpose.
/** @type {Record<string, string>} */
const CORRECTED = {
  'spec/patch/scenarios/': 'the scenarios moved to packages/conformance/patch-scenarios/ (786b82a); docs/apply-patch.md names the new path',
};

let missing = 0;
for (const [kind, list] of Object.entries(facts)) {
  const unique = [...new Set(list)];
  const corrected = unique.filter((fact) => Object.hasOwn(CORRECTED, fact));
  const lost = unique.filter((fact) => !now.includes(flat(fact)) && !corrected.includes(fact));
  missing += lost.length;
  console.log(`${kind}: ${unique.length - lost.length - corrected.length} of ${unique.length} found${corrected.length ? `, ${corrected.length} corrected` : ''}`);
  for (const fact of corrected) console.log(`  corrected: ${fact}: ${CORRECTED[fact]}`);
  for (const fact of lost) console.log(`  MISSING: ${fact}`);
}

// Sentences of the prose (information only: text moved between pages is sometimes joined anew).
const sentences = prose
  .split(/(?<=[.:;])\s+(?=[A-Z`(*])/)
  .map((sentence) => sentence.trim())
  .filter((sentence) => sentence.length > 40);
const reworded = sentences.filter((sentence) => !now.includes(sentence));
console.log(`sentences (information): ${sentences.length - reworded.length} of ${sentences.length} kept word for word`);
if (args.includes('--sentences')) for (const sentence of reworded) console.log(`  REWORDED: ${sentence}`);

console.log(missing === 0 ? `no fact of README.md at ${base} is missing` : `${missing} facts of README.md at ${base} are missing`);
process.exit(missing === 0 ? 0 : 1);
