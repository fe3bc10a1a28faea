// Codex's own apply_patch cases, as data (codex-cases.json): each runs through zodex's applyPatch
// in a scratch folder holding its input; the tree after and, on success, the text must be what
// Codex 0.171.0 produced, unless the case names a deliberate difference (`zodex`, with why).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyPatch, formatPatchReport, PatchParseError } from '../../src/patch/index.js';

interface Outcome {
  ok: boolean;
  stdout?: string;
  tree: Record<string, string>;
  why?: string;
}

interface CodexCase {
  source: string;
  name: string;
  input: Record<string, string>;
  patch: string;
  codex: Outcome;
  zodex?: Outcome;
}

const { cases } = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'codex-cases.json'), 'utf8')) as { cases: CodexCase[] };
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-codex-cases-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function readTree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full).split(path.sep).join('/')] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

describe("Codex's apply_patch cases (spec/patch/codex-cases.json)", () => {
  it('holds the cases the issue names', () => {
    const names = cases.map((c) => c.name);
    expect(names).toContain('a lone CR is a line break, kept');
    expect(names).toContain('empty last old and new lines are dropped when the chunk is not found');
    expect(names).toContain('test_apply_patch_cli_applies_multiple_operations'); // A, then M, then D
    expect(cases.filter((c) => c.zodex).map((c) => c.name)).toHaveLength(2);
  });

  cases.forEach((c, i) => {
    it(`${c.name} (${c.source})`, async () => {
      const dir = path.join(scratch, String(i));
      for (const [file, content] of Object.entries(c.input)) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), content);
      }
      fs.mkdirSync(dir, { recursive: true });
      const expected = c.zodex ?? c.codex;
      let result: { text: string; isError: boolean };
      try {
        result = formatPatchReport(await applyPatch(c.patch, dir));
      } catch (error) {
        if (!(error instanceof PatchParseError)) throw error;
        result = { text: error.message, isError: true };
      }
      expect(readTree(dir)).toEqual(Object.fromEntries(Object.entries(expected.tree).sort(([a], [b]) => (a < b ? -1 : 1))));
      expect(result.isError, result.text).toBe(!expected.ok);
      if (expected.stdout !== undefined) expect(result.text).toBe(expected.stdout);
    });
  });
});
