// The apply_patch benchmark's change, shared by bench/apply-patch.mjs and the comparative
// workload w6: 1,000 one-line edits on a 100,000-line file, as a Codex patch and as the same
// change in unified-diff form for `git apply`; plus a 10 MiB Add File. Deterministic: every call
// builds byte-identical texts.

export const FILE_LINES = 100_000;
export const CHUNKS = 1_000;
export const CONTEXT = 3;
export const ADD_BYTES = 10 * 1024 * 1024;

// The 1,000-chunk update: `original` file text, the change as `codexPatch` and `unifiedDiff`
// (both on big.txt), and the `expectedText` after applying it.
export function updateFixture() {
  // Deterministic pseudo-random words, so every run measures the same input.
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const word = () => Math.floor(random() * 36 ** 6).toString(36);

  // Code-like lines: blank lines and closing braces repeat, the rest are unique.
  const lines = Array.from({ length: FILE_LINES }, (_, i) => (i % 10 === 0 ? '' : i % 10 === 9 ? '}' : `    const v${i} = compute(${i}, "${word()}");`));
  const original = `${lines.join('\n')}\n`;

  // One edit every FILE_LINES / CHUNKS lines, on a unique line with unique lines around it.
  const edits = Array.from({ length: CHUNKS }, (_, k) => k * (FILE_LINES / CHUNKS) + 5);
  const codex = ['*** Begin Patch', '*** Update File: big.txt'];
  const unified = ['--- a/big.txt', '+++ b/big.txt'];
  const expected = [...lines];
  const hunks = [];
  for (const at of edits) {
    const before = lines.slice(at - CONTEXT, at);
    const after = lines.slice(at + 1, at + 1 + CONTEXT);
    const replacement = `${lines[at]} // edited`;
    expected[at] = replacement;
    hunks.push({ before, line: lines[at], replacement, after });
    const body = [...before.map((l) => ` ${l}`), `-${lines[at]}`, `+${replacement}`, ...after.map((l) => ` ${l}`)];
    codex.push('@@', ...body);
    const size = 2 * CONTEXT + 1;
    unified.push(`@@ -${at - CONTEXT + 1},${size} +${at - CONTEXT + 1},${size} @@`, ...body);
  }
  codex.push('*** End Patch');
  return {
    lines,
    original,
    hunks,
    codexPatch: `${codex.join('\n')}\n`,
    unifiedDiff: `${unified.join('\n')}\n`,
    expectedText: `${expected.join('\n')}\n`,
  };
}

// 10 MiB Add File of 64-byte lines, and the same new file as a unified diff.
export function addFixture() {
  const addLines = Array.from({ length: Math.ceil(ADD_BYTES / 64) }, (_, i) => `${String(i).padStart(12, '0')} ${'x'.repeat(50)}`);
  return {
    lineCount: addLines.length,
    addPatch: `*** Begin Patch\n*** Add File: added.txt\n${addLines.map((l) => `+${l}`).join('\n')}\n*** End Patch\n`,
    addDiff: `--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1,${addLines.length} @@\n${addLines.map((l) => `+${l}`).join('\n')}\n`,
    addedText: `${addLines.join('\n')}\n`,
  };
}
