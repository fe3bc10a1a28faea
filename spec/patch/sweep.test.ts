import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPatch } from '../../src/patch/index.js';
import { STALE_ANY_MS, STALE_DEAD_MS, sweepFolder } from '../../src/patch/sweep.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-sweep-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

// A pid that was just in use and is now gone.
function deadPid(): number {
  const child = spawnSync('true');
  return child.pid as number;
}

function leave(name: string, ageMs: number): void {
  const file = path.join(dir, name);
  fs.writeFileSync(file, 'partial');
  const when = (Date.now() - ageMs) / 1000;
  fs.utimesSync(file, when, when);
}

const list = () => fs.readdirSync(dir).sort();

describe('sweeping temp files a dead writer left', () => {
  it('removes ours whose writer is gone and that are quiet, keeps everything else', async () => {
    const dead = deadPid();
    const quiet = STALE_DEAD_MS + 1_000;
    leave(`.a.txt.zodex-${dead}-0123456789ab.tmp`, quiet); // swept
    leave(`.a.txt.zodex-${dead}-0123456789ac.old`, quiet); // swept
    leave(`.b.txt.zodex-${dead}-0123456789ab.tmp`, 0); // too recent: another namespace's live write?
    leave(`.c.txt.zodex-${process.pid}-0123456789ab.tmp`, quiet); // a live writer (this process)
    leave(`.d.txt.zodex-1-0123456789ab.tmp`, quiet); // pid 1 is alive
    leave(`.e.txt.zodex-0123456789ab.tmp`, quiet); // the old name, no pid: only by age
    leave(`.f.txt.zodex-0123456789ab.tmp`, STALE_ANY_MS + 60_000); // old enough whatever the pid
    leave(`.g.txt.zodex-1-0123456789ab.tmp`, STALE_ANY_MS + 60_000);
    leave(`.h.txt.zodex-${dead}-0123456789ab.tmp.mine`, quiet); // not our pattern
    leave(`i.txt.zodex-${dead}-0123456789ab.tmp`, quiet); // not hidden: not ours
    leave(`.j.txt.zodex-${dead}-0123456789ab.tmp`, quiet);
    fs.chownSync(path.join(dir, `.j.txt.zodex-${dead}-0123456789ab.tmp`), 65534, 65534); // another user's
    const removed = await sweepFolder(dir, true);
    expect(removed.sort()).toEqual(
      [
        `.a.txt.zodex-${dead}-0123456789ab.tmp`,
        `.a.txt.zodex-${dead}-0123456789ac.old`,
        '.f.txt.zodex-0123456789ab.tmp',
        '.g.txt.zodex-1-0123456789ab.tmp',
      ].sort(),
    );
    expect(list()).toEqual(
      [
        `.b.txt.zodex-${dead}-0123456789ab.tmp`,
        `.c.txt.zodex-${process.pid}-0123456789ab.tmp`,
        '.d.txt.zodex-1-0123456789ab.tmp',
        '.e.txt.zodex-0123456789ab.tmp',
        `.h.txt.zodex-${dead}-0123456789ab.tmp.mine`,
        `.j.txt.zodex-${dead}-0123456789ab.tmp`,
        `i.txt.zodex-${dead}-0123456789ab.tmp`,
      ].sort(),
    );
  });

  it('runs on the first apply that writes in the folder', async () => {
    const dead = deadPid();
    leave(`.a.txt.zodex-${dead}-0123456789ab.tmp`, STALE_DEAD_MS + 1_000);
    fs.writeFileSync(path.join(dir, 'a.txt'), 'old\n');
    const report = await applyPatch(['*** Begin Patch', '*** Update File: a.txt', '@@', '-old', '+new', '*** End Patch'].join('\n'), dir);
    expect(report.failed).toEqual([]);
    expect(list()).toEqual(['a.txt']);
  });
});
