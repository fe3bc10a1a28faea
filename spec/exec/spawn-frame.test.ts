// The command frame between zodexd (encodeSpec) and zodex-spawn (decode_spec): any string execve
// can carry round-trips exactly, and no value can end a field or start another.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Terminal } from '../../src/exec/launch/terminal.js';
import { StandbyPool } from '../../src/exec/launch/standby.js';
import { encodeSpec, type CommandSpec } from '../../src/exec/launch/wire.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');

interface Field {
  kind: string;
  bytes: Buffer;
}

// What `zodex-spawn --decode` decoded from `frame`: "KIND LEN\nBYTES\n" per field; undefined when
// it refused the frame (exit 2).
function decode(frame: Buffer): Field[] | undefined {
  const run = spawnSync(HELPER, ['--decode'], { input: frame, maxBuffer: 64 << 20 });
  if (run.status !== 0) return undefined;
  const out = run.stdout;
  const fields: Field[] = [];
  for (let at = 0; at < out.length; ) {
    const newline = out.indexOf(0x0a, at);
    const [kind, length] = out.subarray(at, newline).toString('latin1').split(' ');
    const start = newline + 1;
    fields.push({ kind: kind!, bytes: Buffer.from(out.subarray(start, start + Number(length))) });
    at = start + Number(length) + 1;
  }
  return fields;
}

function expected(spec: CommandSpec): Field[] {
  const field = (kind: string, text: string) => ({ kind, bytes: Buffer.from(text, 'utf8') });
  return [
    field('cwd', spec.cwd),
    field('arg', spec.file),
    ...spec.args.map((arg) => field('arg', arg)),
    ...Object.entries(spec.env).map(([key, value]) => field('env', `${key}=${value}`)),
  ];
}

// Strings execve can carry: anything but NUL (lone surrogates included: they travel as UTF-8's
// replacement bytes, which is what the comparison expects too).
const value = fc.string({ unit: 'binary', maxLength: 40 }).map((text) => text.replace(/\0/g, ''));
const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).map((text) => text.replace(/[\0=]/g, '') || 'N');
const spec: fc.Arbitrary<CommandSpec> = fc.record({
  cwd: value,
  file: value,
  args: fc.array(value, { maxLength: 6 }),
  env: fc.dictionary(name, value, { maxKeys: 6 }),
});

const pools: StandbyPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

describe('the spawn frame', () => {
  it('is the length, ARGC, ENVC, then every string behind its own length', () => {
    const frame = encodeSpec({ cwd: '/w', file: '/bin/sh', args: ['-c', 'echo é'], env: { A: '1' } });
    const u32 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff, 0, 0]);
    const str = (text: string) => Buffer.concat([u32(Buffer.byteLength(text)), Buffer.from(text)]);
    const payload = Buffer.concat([u32(3), u32(1), str('/w'), str('/bin/sh'), str('-c'), str('echo é'), str('A=1')]);
    expect(frame).toEqual(Buffer.concat([u32(payload.length), payload]));
  });

  it('encodes a frozen environment once and reuses its bytes; any other environment each time', () => {
    const entries = vi.spyOn(Object, 'entries');
    try {
      const frozen = Object.freeze({ A: '1', B: 'é' });
      const first = encodeSpec({ cwd: '/', file: '/bin/sh', args: ['-c', 'x'], env: frozen });
      const second = encodeSpec({ cwd: '/w', file: '/bin/sh', args: ['-c', 'echo yz'], env: frozen });
      expect(entries).toHaveBeenCalledTimes(1);
      expect(first).toEqual(encodeSpec({ cwd: '/', file: '/bin/sh', args: ['-c', 'x'], env: { A: '1', B: 'é' } }));
      expect(second).toEqual(encodeSpec({ cwd: '/w', file: '/bin/sh', args: ['-c', 'echo yz'], env: { A: '1', B: 'é' } }));
      const open: Record<string, string> = { A: '1' };
      encodeSpec({ cwd: '/', file: '/bin/sh', args: [], env: open });
      open.A = '2'; // not frozen: never kept, so a change is seen
      expect(decode(encodeSpec({ cwd: '/', file: '/bin/sh', args: [], env: open }))).toEqual(
        expected({ cwd: '/', file: '/bin/sh', args: [], env: { A: '2' } }),
      );
    } finally {
      entries.mockRestore();
    }
  });

  it('round-trips any strings execve can carry, exactly, through zodex-spawn', () => {
    fc.assert(
      fc.property(spec, (command) => {
        expect(decode(encodeSpec(command))).toEqual(expected(command));
      }),
      { numRuns: 150 },
    );
  });

  it('keeps what the old NUL-separated frame let a value inject in its own field', () => {
    // "echo A\0; touch X" and "\0\0INJ=x" once ended the command and started the environment.
    const command = { cwd: '/', file: '/bin/sh', args: ['-c', 'echo A', '', 'INJ=x'], env: { K: 'v=w' } };
    expect(decode(encodeSpec(command))).toEqual(expected(command));
  });

  it('is refused when a string holds a NUL, is cut short, or has bytes left over', () => {
    const good = encodeSpec({ cwd: '/', file: '/bin/true', args: ['x'], env: {} });
    expect(decode(good)).toBeDefined();
    const nul = Buffer.from(good);
    nul[nul.length - 1] = 0; // the last argument's only byte
    expect(decode(nul)).toBeUndefined();
    const short = Buffer.from(good.subarray(0, good.length - 1));
    short.writeUInt32LE(short.length - 4, 0);
    expect(decode(short)).toBeUndefined();
    const long = Buffer.concat([good, Buffer.from('z')]);
    long.writeUInt32LE(long.length - 4, 0);
    expect(decode(long)).toBeUndefined();
    const huge = Buffer.from(good);
    huge.writeUInt32LE(0xffffffff, 4); // ARGC far beyond what the payload can hold
    expect(decode(huge)).toBeUndefined();
  });

  it('reaches the command byte for byte: arguments and environment values through a standby', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    pool.fill();
    const samples = fc.sample(fc.tuple(value, value), { numRuns: 15, seed: 12 });
    samples.push(['; touch /tmp/zodex-never\n$(id)', 'a\x1b]6972;x;x0\x07b']);
    for (const [arg, env] of samples) {
      let pty: Terminal | undefined;
      for (let i = 0; i < 200 && !pty; i++) {
        pty = pool.take({ cwd: '/', file: '/bin/sh', args: ['-c', 'printf "%s|%s" "$1" "$V"', 'sh', arg], env: { V: env } });
        if (!pty) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const chunks: Buffer[] = [];
      pty!.onData((bytes) => chunks.push(Buffer.from(bytes)));
      await new Promise((resolve) => pty!.onExit(resolve));
      pty!.dispose();
      expect(Buffer.concat(chunks)).toEqual(Buffer.from(`${arg}|${env}`, 'utf8'));
    }
  });
});
