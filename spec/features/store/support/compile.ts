// Builds the real sources (all of src/) to plain ESM JavaScript in a temp dir, so
// child processes (which vitest does not transpile for) run the very code under test. Uses
// TypeScript's own transpiler; node_modules is linked in so better-sqlite3 and zod resolve.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

const SOURCES = ['src'];

function sourceFiles(entry: string): string[] {
  const full = path.join(repoRoot, entry);
  if (fs.statSync(full).isFile()) return [entry];
  return fs
    .readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(entry, name));
}

// Returns the output root: <root>/src/features/store/index.js etc. Remove it with fs.rmSync when done.
export function compileSources(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-compiled-'));
  fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify({ name: 'zodex', version: '0.0.0-test', type: 'module' }));
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(out, 'node_modules'), 'dir');
  for (const file of SOURCES.flatMap(sourceFiles)) {
    const source = fs.readFileSync(path.join(repoRoot, file), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const target = path.join(out, file.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, outputText);
  }
  return out;
}
