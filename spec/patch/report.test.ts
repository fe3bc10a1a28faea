import { describe, expect, it } from 'vitest';
import { formatPatchReport } from '../../src/patch/index.js';

describe('formatPatchReport', () => {
  it("gives Codex's success text: paths as written, every A, then every M, then every D, a move by its destination", () => {
    expect(
      formatPatchReport({
        changed: [
          { kind: 'D', path: '/abs/old.txt' },
          { kind: 'M', path: 'src/b.ts', movedFrom: 'src/a.ts' },
          { kind: 'A', path: 'new.txt' },
          { kind: 'M', path: 'c.ts' },
          { kind: 'A', path: 'd.txt' },
        ],
        failed: [],
      }),
    ).toEqual({
      text: 'Success. Updated the following files:\nA new.txt\nA d.txt\nM src/b.ts\nM c.ts\nD /abs/old.txt\n',
      isError: false,
    });
  });

  it('lists the operations applied before a failure in the same order, a move with its source', () => {
    const { text } = formatPatchReport({
      changed: [
        { kind: 'D', path: 'gone.txt' },
        { kind: 'M', path: 'b.ts', movedFrom: 'a.ts' },
      ],
      failed: [{ op: 'delete', path: 'c.ts', code: 'FILE_NOT_FOUND', reason: 'c.ts does not exist.' }],
    });
    expect(text.split('\n').slice(0, 3)).toEqual(['These operations were applied (they are not rolled back):', 'M b.ts (moved from a.ts)', 'D gone.txt']);
  });

  it('lists what changed, then each failure with its reason and how to fix it', () => {
    const { text, isError } = formatPatchReport({
      changed: [{ kind: 'M', path: 'a.ts' }],
      failed: [
        { op: 'update', path: 'b.ts', code: 'CONTEXT_NOT_FOUND', reason: 'chunk 1 of 1 ("x", patch line 3): these lines were not found in the file:\n    x' },
        { op: 'delete', path: 'c.ts', code: 'FILE_NOT_FOUND', reason: 'c.ts does not exist.' },
      ],
    });
    expect(isError).toBe(true);
    expect(text).toBe(
      [
        'These operations were applied (they are not rolled back):',
        'M a.ts',
        'Failed (2):',
        '- update b.ts [CONTEXT_NOT_FOUND]: chunk 1 of 1 ("x", patch line 3): these lines were not found in the file:',
        '      x',
        '  Fix: re-read the file and regenerate the hunk from its current content.',
        '- delete c.ts [FILE_NOT_FOUND]: c.ts does not exist.',
        '  Fix: check the path; if the file is already gone, drop this operation.',
        'Retry only the failed operations, after reading the current content of their files.',
        '',
      ].join('\n'),
    );
  });

  it('says when nothing changed', () => {
    const { text } = formatPatchReport({
      changed: [],
      failed: [
        { op: 'update', path: 'a', code: 'AMBIGUOUS_CONTEXT', reason: 'chunk 1 of 1 ("x", patch line 3) matches 2 places (lines 1, 5); nothing was guessed.' },
      ],
    });
    expect(text.startsWith('No files were changed.\nFailed (1):\n- update a [AMBIGUOUS_CONTEXT]:')).toBe(true);
    expect(text).toContain("Fix: add context lines, or an '@@ <line>' header");
  });
});
