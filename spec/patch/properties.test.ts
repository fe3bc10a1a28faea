// Laws of apply_patch, checked with fast-check on a real scratch folder:
//  1. a patch generated from an edit of A turns A into B;
//  2. a rejected patch (bad syntax, or every operation failing) leaves every byte in place;
//  3. parsePatch on any string returns ops or throws PatchParseError, nothing else.
// For law 1 the lines of A are made unique (each carries its index), so every chunk with at least
// one old line matches exactly one place: with repeated lines a generated chunk can be legitimately
// ambiguous, and the law would then be "reports AMBIGUOUS_CONTEXT", which plan.test.ts covers.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { applyPatch, parsePatch, PatchParseError } from '../../src/patch/index.js';

const scratchRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-properties-'));
afterAll(() => fs.rmSync(scratchRoot, { recursive: true, force: true }));
let scratchCount = 0;
function scratch(): string {
  const dir = path.join(scratchRoot, String(scratchCount++));
  fs.mkdirSync(dir);
  return dir;
}

function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const key = path.relative(root, full);
      if (entry.isDirectory()) {
        out[`${key}/`] = 'dir';
        walk(full);
      } else out[key] = `${(fs.statSync(full).mode & 0o7777).toString(8)} ${fs.readFileSync(full).toString('hex')}`;
    }
  };
  walk(root);
  return out;
}

// ---- law 1: generated patch turns A into B ------------------------------------------------------

type EditOp = { t: '=' | '-'; a: number } | { t: '+'; text: string };

const lineText = fc
  .tuple(fc.constantFrom('', ' ', '\t', '    '), fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('', ' ', '\t'))
  .map(([indent, body, trailing]) => ({ indent, body: body.replace(/[\r\n]/g, '_'), trailing }));

const editCase = fc.record({
  a: fc.array(lineText, { maxLength: 30 }),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  // per A line: keep or delete, and 0-2 lines inserted before it; plus lines inserted at the end
  edits: fc.array(fc.record({ keep: fc.boolean(), insert: fc.array(lineText, { maxLength: 2 }) }), { maxLength: 30 }),
  tail: fc.array(lineText, { maxLength: 2 }),
  context: fc.integer({ min: 0, max: 3 }),
  endOfFile: fc.boolean(),
  order: fc.array(fc.nat(), { maxLength: 40 }), // a permutation seed; empty keeps patch order
  move: fc.boolean(),
});

type EditCase = typeof editCase extends fc.Arbitrary<infer T> ? T : never;

function buildCase(c: EditCase) {
  const aLines = c.a.map((l, i) => `${l.indent}L${i}${l.body}${l.trailing}`);
  let inserted = 0;
  const newLine = (l: { indent: string; body: string; trailing: string }) => `${l.indent}N${inserted++}${l.body}${l.trailing}`;
  const ops: EditOp[] = [];
  aLines.forEach((_, i) => {
    const edit = c.edits[i] ?? { keep: true, insert: [] };
    for (const l of edit.insert) ops.push({ t: '+', text: newLine(l) });
    ops.push({ t: edit.keep ? '=' : '-', a: i });
  });
  for (const l of c.tail) ops.push({ t: '+', text: newLine(l) });

  const eol = c.crlf ? '\r\n' : '\n';
  const aText = aLines.map((l, i) => l + (i < aLines.length - 1 || c.finalNewline ? eol : '')).join('');
  // New lines take the file's first line ending (LF when it has none); the result ends with one.
  const newline = aLines.length > 1 || (aLines.length === 1 && c.finalNewline) ? eol : '\n';
  const aEol = (i: number) => (i < aLines.length - 1 || c.finalNewline ? eol : '');
  const bLines: { text: string; eol: string }[] = [];
  for (const op of ops) {
    if (op.t === '=') bLines.push({ text: aLines[op.a] as string, eol: aEol(op.a) });
    if (op.t === '+') bLines.push({ text: op.text, eol: newline });
  }
  const bText = bLines.map((l) => l.text + (l.eol || newline)).join('');

  // Chunks: runs of changes widened by `context` unchanged lines; a pure insertion goes at the end
  // of the file (Codex), so one is widened by the unchanged line before it, or after it; windows
  // that touch are merged.
  const windows: [number, number][] = [];
  for (let i = 0; i < ops.length; i++) {
    if (ops[i]!.t === '=') continue;
    let end = i;
    while (end + 1 < ops.length && ops[end + 1]!.t !== '=') end++;
    let from = Math.max(0, i - c.context);
    let to = Math.min(ops.length - 1, end + c.context);
    if (aLines.length > 0 && !ops.slice(from, to + 1).some((op) => op.t !== '+')) {
      if (from > 0) from--;
      else to++;
    }
    const last = windows[windows.length - 1];
    if (last && from <= last[1] + 1) last[1] = to;
    else windows.push([from, to]);
    i = end;
  }
  const chunks = windows.map(([from, to]) => {
    // Sometimes name the line before the chunk in an @@ header (every line is unique).
    const before = ops[from - 1];
    const header = before?.t === '=' && c.context % 2 === 1 ? `@@ ${aLines[before.a]}` : '@@';
    const body = ops.slice(from, to + 1).map((op) => (op.t === '+' ? `+${op.text}` : `${op.t === '=' ? ' ' : '-'}${aLines[op.a]}`));
    const reachesEnd = to === ops.length - 1;
    return [header, ...body, ...(c.endOfFile && reachesEnd ? ['*** End of File'] : [])];
  });
  // Shuffle the chunks when asked: every chunk is unique and none overlap, so out-of-order recovery applies.
  const order = chunks.map((_, i) => i);
  c.order.forEach((seed, k) => {
    const i = k % order.length;
    const j = seed % order.length;
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  });
  const target = c.move ? 'moved/b.txt' : 'a.txt';
  const patch = [
    '*** Begin Patch',
    '*** Update File: a.txt',
    ...(c.move ? [`*** Move to: ${target}`] : []),
    ...order.flatMap((i) => chunks[i] as string[]),
    '*** End Patch',
  ].join('\n');
  return { aText, bText, patch, target, changed: chunks.length > 0 };
}

describe('law 1: a patch generated from an edit turns A into B', () => {
  it('holds for random unique-line files, edits, context sizes, line endings and chunk orders', async () => {
    await fc.assert(
      fc.asyncProperty(editCase, async (c) => {
        const { aText, bText, patch, target, changed } = buildCase(c);
        fc.pre(changed); // an Update hunk needs at least one chunk
        const dir = scratch();
        fs.writeFileSync(path.join(dir, 'a.txt'), aText);
        const report = await applyPatch(patch, dir);
        expect(report.failed).toEqual([]);
        expect(fs.readFileSync(path.join(dir, target), 'utf8')).toBe(bText);
        expect(Object.keys(snapshot(dir)).filter((f) => f.includes('.zodex-'))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

// ---- law 2: a rejected patch leaves every byte in place ------------------------------------------

const fileBytes = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
  fc.array(fc.constantFrom('dup', 'x', 'dup ', ''), { maxLength: 6 }).map((lines) => Buffer.from(`dup\n${lines.join('\r\n')}\ndup\n`)),
);

const failingOp = fc.oneof(
  fc.constant(['*** Update File: f0', '@@', '-zz not present anywhere', '+x']),
  fc.constant(['*** Update File: f1', '@@', ' dup', '+ambiguous?']),
  fc.constant(['*** Update File: missing.txt', '@@', '-a', '+b']),
  fc.constant(['*** Delete File: missing.txt']),
  fc.constant(['*** Delete File: sub']),
  fc.constant(['*** Update File: f2', '*** Move to: moved.txt', '@@', '-zz not present', '+y']),
);

// Valid operations (that would succeed) plus one line that breaks the syntax.
// Each of these is invalid wherever it is inserted.
const syntaxBreaker = fc.constantFrom('garbage line', '*** Frobnicate File: x', '@@bad', '*** Add File:', '*** Update File:  ');

describe('law 2: a rejected patch leaves every byte in place', () => {
  it('when every operation fails, or when the syntax is broken anywhere', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileBytes, { minLength: 3, maxLength: 3 }),
        fc.array(failingOp, { minLength: 1, maxLength: 5 }),
        fc.option(fc.tuple(syntaxBreaker, fc.nat()), { nil: undefined }),
        async (contents, failing, breaker) => {
          const dir = scratch();
          contents.forEach((bytes, i) => fs.writeFileSync(path.join(dir, `f${i}`), bytes));
          fs.mkdirSync(path.join(dir, 'sub'));
          fs.writeFileSync(path.join(dir, 'sub', 'inner.txt'), 'inner\n');
          fs.chmodSync(path.join(dir, 'f0'), 0o751);
          const before = snapshot(dir);

          let body: string[] = failing.flat();
          if (breaker) {
            // With broken syntax even operations that would succeed must not run.
            body = ['*** Add File: new.txt', '+new', '*** Delete File: f0', ...body];
            const at = 1 + (breaker[1] % body.length);
            body.splice(at, 0, breaker[0]);
          }
          const patch = ['*** Begin Patch', ...body, '*** End Patch'].join('\n');
          if (breaker) {
            await expect(applyPatch(patch, dir)).rejects.toBeInstanceOf(PatchParseError);
          } else {
            const report = await applyPatch(patch, dir);
            expect(report.changed).toEqual([]);
            expect(report.failed).toHaveLength(failing.length);
          }
          expect(snapshot(dir)).toEqual(before);
        },
      ),
      { numRuns: 150 },
    );
  });
});

// ---- law 3: parsePatch only ever throws PatchParseError -----------------------------------------

const fragment = fc.oneof(
  fc.constantFrom(
    '*** Begin Patch',
    '*** End Patch',
    '*** Add File: a',
    '*** Delete File: b',
    '*** Update File: c',
    '*** Move to: d',
    '*** Move to:',
    '*** Add File:',
    '@@',
    '@@ ctx',
    '@@@',
    ' ctx',
    '-old',
    '+new',
    '',
    ' ',
    '*** End of File',
    "<<'EOF'",
    'EOF',
    '  *** End Patch  ',
    '\t',
    '\r',
  ),
  fc.string({ maxLength: 10 }),
);

function expectOnlyParseErrors(text: string): void {
  try {
    const ops = parsePatch(text);
    expect(ops.length).toBeGreaterThan(0);
  } catch (error) {
    expect(error).toBeInstanceOf(PatchParseError);
    const line = (error as PatchParseError).line;
    expect(line).toBeGreaterThanOrEqual(1);
    expect(line).toBeLessThanOrEqual(text.split(/\r?\n/).length);
  }
}

describe('law 3: parsePatch never throws anything but PatchParseError', () => {
  it('on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), expectOnlyParseErrors), { numRuns: 2000 });
  });

  it('on strings made of grammar fragments', () => {
    const text = fc
      .tuple(fc.boolean(), fc.array(fragment, { maxLength: 25 }), fc.boolean())
      .map(([begin, lines, end]) => [...(begin ? ['*** Begin Patch'] : []), ...lines, ...(end ? ['*** End Patch'] : [])].join('\n'));
    fc.assert(fc.property(text, expectOnlyParseErrors), { numRuns: 5000 });
  });
});
