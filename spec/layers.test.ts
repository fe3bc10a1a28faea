// The layer rule of src/ (issue 14), measured from the code by scripts/check-layers.mjs: no import
// runs upward or between siblings, and no circle between folders. The fixture graphs prove the
// checker finds each kind of violation, so the pass on src/ can fail.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGraph as check, readImportGraph } from '../scripts/check-layers.mjs';

describe('the layer check', () => {
  it('passes a graph whose imports all run downward', () => {
    expect(check([
      { from: 'cli/zodexd.ts', to: 'app/main.ts' },
      { from: 'server/server.ts', to: 'tools/exec.ts' },
      { from: 'exec/engine.ts', to: 'store/index.ts' },
      { from: 'store/sqlite.ts', to: 'errors.ts' },
      { from: 'cli/commands/history.ts', to: 'cli/commands/format.ts' },
    ])).toEqual([]);
  });

  it('names an upward import', () => {
    expect(check([{ from: 'server/runtime.ts', to: 'cli/config.ts' }])).toEqual([
      expect.stringMatching(/^server\/runtime\.ts -> cli\/config\.ts: imports upward/),
    ]);
  });

  it('names an import between siblings', () => {
    expect(check([{ from: 'exec/environment.ts', to: 'publisher/paths.ts' }])).toEqual([
      expect.stringMatching(/^exec\/environment\.ts -> publisher\/paths\.ts: imports sideways/),
    ]);
  });

  it('names a folder that is in no layer', () => {
    expect(check([{ from: 'widgets/a.ts', to: 'errors.ts' }])).toEqual([expect.stringContaining('src/widgets/ is in no layer')]);
  });

  it('names a circle between folders, even inside one layer', () => {
    const problems = check([
      { from: 'cli/zodex.ts', to: 'cli/commands/history.ts' },
      { from: 'cli/commands/history.ts', to: 'cli/zodex.ts' },
    ]);
    expect(problems).toEqual([expect.stringMatching(/^circle between folders cli, cli\/commands \(/)]);
  });

  it('reads import, export-from and import() from source files', () => {
    const edges = readImportGraph(path.join(__dirname, 'layers-fixture'));
    expect(edges.map((e) => `${e.from} -> ${e.to}`).sort()).toEqual([
      'exec/a.ts -> errors.ts',
      'exec/a.ts -> store/b.ts',
      'store/b.ts -> exec/a.ts',
      'store/b.ts -> tools/c.ts',
    ]);
    expect(check(edges)).toHaveLength(3);
  });

  it('holds for src/', () => {
    expect(check(readImportGraph(path.join(__dirname, '..', 'src')))).toEqual([]);
  });
});
