// The layer rule of src/ (issues 14 and 25), measured from the code by scripts/check-layers.mjs: no
// import runs upward or between siblings, the core imports no feature, a feature imports only the
// core and the features it declares (never the composition root), and no circle between folders
// or between the files of one folder. The fixture graphs prove the checker finds each kind of
// violation, so the pass on src/ can fail.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGraph as check, readImportGraph } from '../scripts/check-layers.mjs';

describe('the layer check', () => {
  it('passes a graph whose imports all run downward', () => {
    expect(
      check([
        { from: 'cli/zodexd.ts', to: 'app/main.ts' },
        { from: 'server/server.ts', to: 'tools/exec.ts' },
        { from: 'exec/engine.ts', to: 'bounds/confinement.ts' },
        { from: 'features/store/sqlite.ts', to: 'errors.ts' },
        { from: 'features/store/types.ts', to: 'server/seams.ts' },
        { from: 'features/liveboard/feed.ts', to: 'features/store/index.ts' },
        { from: 'app/runtime.ts', to: 'features/liveboard/control.ts' },
        { from: 'cli/commands/history.ts', to: 'cli/commands/format.ts' },
      ]),
    ).toEqual([]);
  });

  it('names an upward import', () => {
    expect(check([{ from: 'server/runtime.ts', to: 'cli/config.ts' }])).toEqual([
      expect.stringMatching(/^server\/runtime\.ts -> cli\/config\.ts: imports upward/),
    ]);
  });

  it('names an import between siblings', () => {
    expect(check([{ from: 'exec/environment.ts', to: 'patch/apply.ts' }])).toEqual([
      expect.stringMatching(/^exec\/environment\.ts -> patch\/apply\.ts: imports sideways/),
    ]);
  });

  it('names an import from the core into a feature', () => {
    expect(check([{ from: 'server/conversation.ts', to: 'features/store/index.ts' }])).toEqual([
      expect.stringMatching(/^server\/conversation\.ts -> features\/store\/index\.ts: the core imports a feature/),
    ]);
  });

  it('names an import between features that is not declared, and one into the composition root', () => {
    expect(check([{ from: 'features/context/tracker.ts', to: 'features/store/index.ts' }])).toEqual([
      expect.stringMatching(/^features\/context\/tracker\.ts -> features\/store\/index\.ts: imports a feature it does not declare/),
    ]);
    expect(check([{ from: 'features/bounds/prepare.ts', to: 'app/config/defaults.ts' }])).toEqual([
      expect.stringMatching(/^features\/bounds\/prepare\.ts -> app\/config\/defaults\.ts: imports upward, into the composition root/),
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

  it('names a circle between the files of one folder', () => {
    const problems = check([
      { from: 'server/call-request.ts', to: 'server/tools.ts' },
      { from: 'server/tools.ts', to: 'server/call-request.ts' },
    ]);
    expect(problems).toEqual([expect.stringMatching(/^circle between files server\/call-request\.ts, server\/tools\.ts \(/)]);
  });

  it('reads import, export-from and import() from source files', () => {
    const edges = readImportGraph(path.join(__dirname, 'layers-fixture'));
    expect(edges.map((e) => `${e.from} -> ${e.to}`).sort()).toEqual([
      'exec/a.ts -> errors.ts',
      'exec/a.ts -> net/b.ts',
      'net/b.ts -> exec/a.ts',
      'net/b.ts -> tools/c.ts',
    ]);
    expect(check(edges)).toHaveLength(3);
  });

  it('reads a type-only import as an edge of a circle', () => {
    const edges = readImportGraph(path.join(__dirname, 'layers-fixture-files'));
    expect(edges.map((e) => `${e.from} -> ${e.to}`).sort()).toEqual(['server/a.ts -> server/b.ts', 'server/b.ts -> server/a.ts']);
    expect(check(edges)).toEqual([expect.stringMatching(/^circle between files server\/a\.ts, server\/b\.ts/)]);
  });

  it('holds for src/', () => {
    expect(check(readImportGraph(path.join(__dirname, '..', 'src')))).toEqual([]);
  });
});
