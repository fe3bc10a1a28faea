import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveWorkdir } from '../../src/tools/workdir.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-workdir-'));
const file = path.join(dir, 'file');
fs.writeFileSync(file, 'x');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe('resolveWorkdir', () => {
  it('accepts an absolute existing directory, normalised', () => {
    expect(resolveWorkdir(`${dir}/./`, undefined)).toBe(`${dir}/`);
    expect(resolveWorkdir(dir, undefined)).toBe(dir);
  });

  it('gives each broken rule its own code', () => {
    expect(codeOf(() => resolveWorkdir(undefined, undefined))).toBe('WORKDIR_REQUIRED');
    expect(codeOf(() => resolveWorkdir('', undefined))).toBe('WORKDIR_REQUIRED');
    expect(codeOf(() => resolveWorkdir('relative/path', undefined))).toBe('WORKDIR_NOT_ABSOLUTE');
    expect(codeOf(() => resolveWorkdir(path.join(dir, 'missing'), undefined))).toBe('WORKDIR_NOT_FOUND');
    expect(codeOf(() => resolveWorkdir(file, undefined))).toBe('WORKDIR_NOT_A_DIRECTORY');
  });

  it('falls back to the default only when workdir is absent', () => {
    expect(resolveWorkdir(undefined, dir)).toBe(dir);
    expect(codeOf(() => resolveWorkdir('rel', dir))).toBe('WORKDIR_NOT_ABSOLUTE');
  });

  it('names the rule and the bad value in its message', () => {
    expect(() => resolveWorkdir('rel', undefined)).toThrow(/absolute path; got "rel"/);
    expect(() => resolveWorkdir(file, undefined)).toThrow(/is not a directory/);
  });
});
