// The confinement entry (native/PROTOCOL.md, "The confinement entry"), pinned from both sides:
// encodeConfinement's text, parsed by zodex-spawn itself (`--show-policy`), gives back every entry
// in order, whatever bytes a path holds; an entry zodex-spawn does not know, or a malformed one,
// is refused (a policy is never half applied); the end marker's facts reach the exit.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Confinement } from '../../src/bounds/confinement.js';
import { probeAdvice, probeConfinement } from '../../src/features/bounds/probe.js';
import { CONFINE_ENV, encodeConfinement, parseStatus } from '../../src/exec/launch/wire.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');

// zodex-spawn's reading of an entry: [key, value] pairs, or the refusal line.
function show(text: string): Array<[string, string]> | string {
  const run = spawnSync(HELPER, ['--show-policy'], { env: { [CONFINE_ENV]: text }, encoding: 'buffer' });
  if (run.status !== 0) return run.stdout.toString('utf8').trim();
  const out = run.stdout;
  const entries: Array<[string, string]> = [];
  for (let at = 0; at < out.length; ) {
    const newline = out.indexOf(0x0a, at);
    const [key, length] = out.subarray(at, newline).toString('latin1').split(' ');
    const start = newline + 1;
    entries.push([key!, out.subarray(start, start + Number(length)).toString('utf8')]);
    at = start + Number(length) + 1;
  }
  return entries;
}

const base: Confinement = {
  governed: false,
  sandbox: 'off',
  networkOff: false,
  masks: [],
  maskPrefixes: [],
  pins: [],
  allowedSockets: [],
  binds: [],
  writableRoots: [],
  privateTmp: undefined,
  visible: [],
  runtimeDir: undefined,
  keep: [],
  readOnly: [],
};

// Absolute paths with any character an environment entry can carry (no NUL): colons, digits
// right after a key, newlines, non-ASCII.
const absolutePath = fc.string({ unit: 'grapheme', maxLength: 30 }).map((text) => `/${text.replace(/\0/g, '')}`);

describe('the confinement entry', () => {
  it('is KEY LEN ":" VALUE, one after the other, LEN in UTF-8 bytes', () => {
    const text = encodeConfinement({ ...base, governed: true, masks: ['/h/é'], networkOff: true });
    expect(text).toBe('g1:1n3:offm5:/h/é');
    expect(show(text)).toEqual([
      ['g', '1'],
      ['n', 'off'],
      ['m', '/h/é'],
    ]);
  });

  it('reaches zodex-spawn entry for entry, whatever the paths hold', () => {
    const confinement = fc.record({
      governed: fc.boolean(),
      sandbox: fc.constantFrom('off', 'read-only', 'workspace-write'),
      networkOff: fc.boolean(),
      masks: fc.array(absolutePath, { maxLength: 4 }),
      maskPrefixes: fc.array(absolutePath, { maxLength: 2 }),
      pins: fc.array(absolutePath, { maxLength: 3 }),
      allowedSockets: fc.array(absolutePath, { maxLength: 2 }),
      binds: fc.array(fc.record({ source: absolutePath, target: absolutePath }), { maxLength: 2 }),
      writableRoots: fc.array(absolutePath, { maxLength: 2 }),
      privateTmp: fc.option(absolutePath, { nil: undefined }),
      visible: fc.array(absolutePath, { maxLength: 2 }),
      runtimeDir: fc.option(absolutePath, { nil: undefined }),
      keep: fc.array(absolutePath, { maxLength: 2 }),
      readOnly: fc.array(absolutePath, { maxLength: 2 }),
    }) as fc.Arbitrary<Confinement>;
    fc.assert(
      fc.property(confinement, (policy) => {
        const expected: Array<[string, string]> = [
          ...(policy.governed ? [['g', '1'] as [string, string]] : []),
          ...(policy.sandbox !== 'off' ? [['s', policy.sandbox] as [string, string]] : []),
          ...(policy.networkOff ? [['n', 'off'] as [string, string]] : []),
          ...policy.pins.map((value): [string, string] => ['p', value]),
          ...policy.masks.map((value): [string, string] => ['m', value]),
          ...policy.maskPrefixes.map((value): [string, string] => ['M', value]),
          ...policy.allowedSockets.map((value): [string, string] => ['a', value]),
          ...policy.binds.flatMap(
            ({ source, target }): Array<[string, string]> => [
              ['b', source],
              ['B', target],
            ],
          ),
          ...policy.writableRoots.map((value): [string, string] => ['w', value]),
          ...policy.keep.map((value): [string, string] => ['k', value]),
          ...policy.readOnly.map((value): [string, string] => ['o', value]),
          ...(policy.privateTmp ? [['t', policy.privateTmp] as [string, string]] : []),
          ...policy.visible.map((value): [string, string] => ['v', value]),
          ...(policy.runtimeDir ? [['r', policy.runtimeDir] as [string, string]] : []),
        ];
        expect(show(encodeConfinement(policy))).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('is refused whole when an entry is unknown, cut short, or a path is relative', () => {
    expect(show('g1:1x1:y')).toMatch(/unknown entry 'x'/);
    expect(show('m9:/short')).toMatch(/malformed entry 'm'/);
    expect(show('m3:abc')).toMatch(/'m' path is not absolute/);
    expect(show('s4:nope')).toMatch(/unknown sandbox 'nope'/);
    expect(show('b3:/ab')).toMatch(/a bind without its destination/);
  });
});

describe('the end marker facts', () => {
  it('carry the refused socket() calls beside the status', () => {
    expect(parseStatus('x0;net=3')).toEqual({ exitCode: 0, signal: undefined, networkRefused: 3 });
    expect(parseStatus('s9;net=1')).toEqual({ exitCode: 137, signal: 9, networkRefused: 1 });
    expect(parseStatus('x2;other=5')).toEqual({ exitCode: 2, signal: undefined });
  });
});

describe('the start probe', () => {
  it('answers ok when every step can be taken, and names the step that cannot', async () => {
    expect(await probeConfinement(HELPER, encodeConfinement({ ...base, governed: true, networkOff: true }), '/tmp', '/bin/sh')).toEqual({ ok: true });
    const failed = await probeConfinement(
      HELPER,
      encodeConfinement({ ...base, governed: true, sandbox: 'workspace-write', writableRoots: ['/nonexistent-zodex-root'] }),
      '/tmp',
      '/bin/sh',
    );
    expect(failed).toEqual({ ok: false, reason: expect.stringContaining('cloning the writable root /nonexistent-zodex-root') });
    expect(probeAdvice('unshare(CLONE_NEWUSER|CLONE_NEWNS) (user namespaces): Operation not permitted')).toMatch(/max_user_namespaces/);
    expect(probeAdvice('Landlock ABI 4 is older than 6 (Linux 6.12)')).toMatch(/Linux 6.12/);
  });
});
