// apply_patch inside the bounds (src/features/bounds/patch.ts): a credential store, reached by its path, a
// symlink or a hard link, fails its operation with CREDENTIAL_STORE_DENIED; with the sandbox a
// write outside the workdir, the roots and the private /tmp fails with SANDBOX_WRITE_DENIED; /tmp
// means the private /tmp; and a folder swapped for a symlink between the check and the write
// cannot lead the write outside (every write goes through the folder the guard opened).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { patchBoundary, type PatchBounds } from '../../../src/features/bounds/patch.js';
import { nodeFs } from '../../../src/patch/apply.js';
import type { FsPort } from '../../../src/patch/port.js';
import { applyPatch as applyBounded } from '../../../src/patch/index.js';

// The engine, bounded as zodexd bounds it: through the seam, by these bounds.
const applyPatch = (patch: string, workdir: string, fs: FsPort = nodeFs, bounds?: PatchBounds) =>
  applyBounded(patch, workdir, fs, bounds && patchBoundary(bounds));

const scratch: string[] = [];
const tempDir = (base = os.tmpdir()) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, 'zodex-patch-bounds-')));
  scratch.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const patchOf = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
const codes = (report: Awaited<ReturnType<typeof applyPatch>>) => report.failed.map((failure) => `${failure.path} ${failure.code}`);

describe('the write mode', () => {
  it('keeps every operation away from a store, by path, symlink or hard link, and applies the rest', async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.git-credentials'), 'https://writer:secret@example.com\n');
    fs.symlinkSync(path.join(home, '.git-credentials'), path.join(home, 'innocent-link'));
    fs.linkSync(path.join(home, '.git-credentials'), path.join(home, 'hard-link'));
    const bounds: PatchBounds = {
      denied: [path.join(home, '.git-credentials'), path.join(home, '.ssh')],
      sandbox: 'off',
      writableRoots: [],
      privateTmp: undefined,
    };
    const report = await applyPatch(
      patchOf(
        '*** Update File: .git-credentials',
        '*** Move to: stolen',
        '@@',
        '-https://writer:secret@example.com',
        '+x',
        '*** Add File: .ssh/authorized_keys',
        '+ssh-ed25519 AAAA attacker',
        '*** Update File: innocent-link',
        '@@',
        '-https://writer:secret@example.com',
        '+y',
        '*** Delete File: hard-link',
        '*** Add File: fine.txt',
        '+fine',
      ),
      home,
      nodeFs,
      bounds,
    );
    expect(codes(report)).toEqual([
      '.git-credentials CREDENTIAL_STORE_DENIED',
      '.ssh/authorized_keys CREDENTIAL_STORE_DENIED',
      'innocent-link CREDENTIAL_STORE_DENIED',
      'hard-link CREDENTIAL_STORE_DENIED',
    ]);
    expect(report.failed.map((failure) => failure.reason).join('\n')).not.toContain('secret');
    expect(report.changed).toEqual([{ kind: 'A', path: 'fine.txt' }]);
    expect(fs.readFileSync(path.join(home, '.git-credentials'), 'utf8')).toContain('secret');
    expect(fs.existsSync(path.join(home, 'hard-link'))).toBe(true);
    expect(fs.existsSync(path.join(home, 'stolen'))).toBe(false);
  });
});

describe('the sandbox', () => {
  it('workspace-write: the workdir, a writable root and the private /tmp are writable, nothing else', async () => {
    const work = tempDir();
    const root = tempDir();
    const outside = tempDir('/var/tmp');
    const privateTmp = tempDir();
    fs.symlinkSync(outside, path.join(work, 'link-out'));
    const bounds: PatchBounds = { denied: [], sandbox: 'workspace-write', writableRoots: [root], privateTmp };
    const report = await applyPatch(
      patchOf(
        '*** Add File: in-work.txt',
        '+a',
        `*** Add File: ${root}/in-root.txt`,
        '+b',
        '*** Add File: /tmp/zodex-scratch-note.txt',
        '+c',
        `*** Add File: ${outside}/out.txt`,
        '+d',
        '*** Add File: link-out/through.txt',
        '+e',
        `*** Add File: ${os.homedir()}/zodex-patch-probe.txt`,
        '+f',
      ),
      work,
      nodeFs,
      bounds,
    );
    expect(codes(report)).toEqual([
      `${outside}/out.txt SANDBOX_WRITE_DENIED`,
      'link-out/through.txt SANDBOX_WRITE_DENIED',
      `${os.homedir()}/zodex-patch-probe.txt SANDBOX_WRITE_DENIED`,
    ]);
    expect(fs.readFileSync(path.join(work, 'in-work.txt'), 'utf8')).toBe('a\n');
    expect(fs.readFileSync(path.join(root, 'in-root.txt'), 'utf8')).toBe('b\n');
    expect(fs.readFileSync(path.join(privateTmp, 'zodex-scratch-note.txt'), 'utf8')).toBe('c\n');
    expect(fs.existsSync('/tmp/zodex-scratch-note.txt')).toBe(false);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('read-only: nothing but the private /tmp, the workdir included', async () => {
    const work = tempDir();
    const privateTmp = tempDir();
    const report = await applyPatch(patchOf('*** Add File: a.txt', '+a', '*** Add File: /tmp/b.txt', '+b'), work, nodeFs, {
      denied: [],
      sandbox: 'read-only',
      writableRoots: [],
      privateTmp,
    });
    expect(codes(report)).toEqual(['a.txt SANDBOX_WRITE_DENIED']);
    expect(fs.readFileSync(path.join(privateTmp, 'b.txt'), 'utf8')).toBe('b\n');
  });

  it('writes through the folder it checked, whatever replaces that folder meanwhile', async () => {
    const work = tempDir();
    const outside = tempDir('/var/tmp');
    fs.mkdirSync(path.join(work, 'sub'));
    // The moment apply_patch creates its temp file, the folder is moved away and a symlink to
    // `outside` put in its place: a write by path would land outside.
    let swapped = false;
    const racing: FsPort = {
      ...nodeFs,
      open: async (file, flags, mode) => {
        if (!swapped) {
          swapped = true;
          fs.renameSync(path.join(work, 'sub'), path.join(work, 'sub-moved'));
          fs.symlinkSync(outside, path.join(work, 'sub'));
        }
        return nodeFs.open(file, flags, mode);
      },
    };
    const report = await applyPatch(patchOf('*** Add File: sub/new.txt', '+x'), work, racing, {
      denied: [],
      sandbox: 'workspace-write',
      writableRoots: [],
      privateTmp: undefined,
    });
    expect(swapped).toBe(true);
    expect(fs.readdirSync(outside)).toEqual([]);
    // The folder it had opened is where the write went (moved away, still inside the workdir), or
    // the operation failed: never outside.
    expect(report.failed.length === 1 || fs.existsSync(path.join(work, 'sub-moved', 'new.txt'))).toBe(true);
  });
});
