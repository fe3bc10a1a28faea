// The native addon's concealment (issue 26): eraseEnvironment removes a variable from
// /proc/PID/environ (which unsetenv alone does not), and a non-dumpable process's /proc files and
// memory are closed to another process of its own uid. Each case runs a small program of its own,
// as root and as `nobody`, from a copy of the addon any user can load.

import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..');
const NOBODY = 65534;
const SECRET = 'native-test-secret-0123456789';
const root = process.getuid?.() === 0;

let scratch: string;
let addon: string;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-native-'));
  fs.chmodSync(scratch, 0o755);
  addon = path.join(scratch, 'zodex_native.node');
  fs.copyFileSync(path.join(ROOT, 'build/Release/zodex_native.node'), addon);
  fs.chmodSync(addon, 0o755);
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

// A program that conceals itself (or only unsets, to show why erasing is needed), says so, and waits.
function concealed(how: 'erase' | 'unset' | 'conceal', asNobody = false): Promise<{ pid: number; stop: () => void }> {
  const script = `
    const a = require(${JSON.stringify(addon)});
    if (${JSON.stringify(how)} === 'unset') delete process.env.MY_SECRET;
    if (${JSON.stringify(how)} === 'erase') a.eraseEnvironment(['MY_SECRET']);
    if (${JSON.stringify(how)} === 'conceal') { a.eraseEnvironment(['MY_SECRET']); a.setDumpable(false); }
    process.stdout.write(String(process.env.MY_SECRET) + '\\n');
    setInterval(() => {}, 1000);`;
  const prefix = asNobody ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'] : [];
  const [file, ...args] = [...prefix, process.execPath, '-e', script];
  const child = spawn(file!, args, { env: { PATH: process.env.PATH, MY_SECRET: SECRET, KEEP_ME: 'kept' }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => {
      if (chunk.toString() !== 'undefined\n') reject(new Error(`process.env still has it: ${chunk.toString()}`));
      resolve({ pid: child.pid!, stop: () => child.kill('SIGKILL') });
    });
    child.once('error', reject);
  });
}

// The process running under setpriv: its child, the node program.
function programPid(pid: number): number {
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return children === '' ? pid : Number(children.split(/\s+/)[0]);
}

describe('eraseEnvironment', () => {
  it('takes the value out of /proc/PID/environ, where unsetting alone leaves it', async () => {
    const unset = await concealed('unset');
    const erased = await concealed('erase');
    try {
      expect(fs.readFileSync(`/proc/${unset.pid}/environ`, 'latin1')).toContain(`MY_SECRET=${SECRET}`);
      const environ = fs.readFileSync(`/proc/${erased.pid}/environ`, 'latin1');
      expect(environ).not.toContain(SECRET);
      expect(environ).not.toContain('MY_SECRET');
      expect(environ).toContain('KEEP_ME=kept');
    } finally {
      unset.stop();
      erased.stop();
    }
  });
});

describe.runIf(root)('setDumpable(false)', () => {
  it("closes the process's environ and memory to another process of its own uid (not to root)", async () => {
    const open = await concealed('erase', true);
    const closed = await concealed('conceal', true);
    const readAsNobody = async (file: string) => {
      const script = `try { require('fs').readFileSync(${JSON.stringify(file)}); process.stdout.write('read') } catch (e) { process.stdout.write(e.code) }`;
      return (await run('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script], { encoding: 'utf8' })).stdout;
    };
    try {
      const [openPid, closedPid] = [programPid(open.pid), programPid(closed.pid)];
      expect(await readAsNobody(`/proc/${openPid}/environ`)).toBe('read');
      expect(await readAsNobody(`/proc/${closedPid}/environ`)).toBe('EACCES');
      expect(await readAsNobody(`/proc/${closedPid}/mem`)).toBe('EACCES');
      expect(fs.statSync(`/proc/${closedPid}/environ`).uid).toBe(0);
      expect(fs.readFileSync(`/proc/${closedPid}/environ`, 'latin1')).not.toContain(SECRET); // root reads it: erased all the same
    } finally {
      open.stop();
      closed.stop();
    }
  });
});
