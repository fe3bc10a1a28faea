// The wire formats of native/PROTOCOL.md, pinned from both sides: zodexd's decoders (wire.ts)
// against the bytes the built zodex-spawn really writes, and the pure end-marker reader against
// every way a read can cut the marker. (The command frame: spawn-frame.test.ts.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import tty from 'node:tty';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openTerminal, startHelper } from '../../src/exec/launch/nodepty.js';
import type { Terminal } from '../../src/exec/launch/terminal.js';
import { EndMarkerReader, HANG_UP, KILL_REQUEST, parseHello, parseStatus, parseZygoteReport, zygoteRequest } from '../../src/exec/launch/wire.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');
const NONCE = '0123456789abcdef01234567';
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'dumb' };

// Every byte zodex-spawn's terminal carries until `until` holds for what arrived so far.
function rawBytes(terminal: Terminal, until: (bytes: Buffer) => boolean): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    terminal.onData((data) => {
      chunks.push(Buffer.from(data));
      if (until(Buffer.concat(chunks))) resolve(Buffer.concat(chunks));
    });
    terminal.onExit(() => resolve(Buffer.concat(chunks)));
  });
}

const endsWithBel = (bytes: Buffer) => bytes.length > 0 && bytes[bytes.length - 1] === 0x07;

function read(nonce: string, chunks: Buffer[]) {
  const reader = new EndMarkerReader(nonce);
  const output: Buffer[] = [];
  let status;
  for (const chunk of chunks) {
    const step = reader.push(chunk);
    if (step.output) output.push(Buffer.from(step.output));
    if (step.status) status = step.status;
  }
  return { output: Buffer.concat(output).toString('latin1'), status };
}

describe('the end marker', () => {
  it('is ESC ] 6972 ; NONCE ; x<code> BEL after the output, as zodex-spawn writes it', async () => {
    const terminal = startHelper(HELPER, NONCE, ['/bin/sh', '-c', 'printf out; exit 3'], { cols: 80, rows: 24, cwd: '/', env });
    const bytes = await rawBytes(terminal, endsWithBel);
    terminal.dispose();
    expect(bytes.toString('latin1')).toBe(`out\x1b]6972;${NONCE};x3\x07`);
    expect(read(NONCE, [bytes])).toEqual({ output: 'out', status: { exitCode: 3, signal: undefined } });
  });

  it('is s<signal> when the shell died of one: 128 + signal as its code', async () => {
    const terminal = startHelper(HELPER, NONCE, ['/bin/sh', '-c', 'kill -9 $$'], { cols: 80, rows: 24, cwd: '/', env });
    const bytes = await rawBytes(terminal, endsWithBel);
    terminal.dispose();
    expect(bytes.toString('latin1')).toBe(`\x1b]6972;${NONCE};s9\x07`);
    expect(parseStatus('s9')).toEqual({ exitCode: 137, signal: 9 });
  });

  it('is found whatever reads cut it, and nothing of it reaches the output', () => {
    const output = fc.string({ unit: 'binary', maxLength: 60 }).map((text) => text.replace(/\x1b\]6972;/g, ''));
    fc.assert(
      fc.property(output, fc.array(fc.nat(80), { maxLength: 8 }), fc.integer({ min: 0, max: 255 }), (text, cuts, code) => {
        const whole = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(`\x1b]6972;${NONCE};x${code}\x07trailing`, 'latin1')]);
        const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((from, i) => whole.subarray(from, [...points, whole.length][i]));
        expect(read(NONCE, chunks)).toEqual({ output: Buffer.from(text, 'utf8').toString('latin1'), status: { exitCode: code, signal: undefined } });
      }),
      { numRuns: 300 },
    );
  });

  it('of another nonce is output, and a terminal closed mid-marker gives its bytes back', () => {
    expect(read(NONCE, [Buffer.from('a\x1b]6972;ffff;x0\x07b')])).toEqual({ output: 'a\x1b]6972;ffff;x0\x07b', status: undefined });
    const reader = new EndMarkerReader(NONCE);
    expect(reader.push(Buffer.from(`z\x1b]6972;${NONCE.slice(0, 5)}`)).output?.toString()).toBe('z');
    expect(reader.end()?.toString('latin1')).toBe(`\x1b]6972;${NONCE.slice(0, 5)}`);
  });
});

describe('the signals', () => {
  it('a kill request kills the command and is reported by the marker; the hang-up then ends zodex-spawn', async () => {
    const terminal = startHelper(HELPER, NONCE, ['/bin/sh', '-c', 'echo up; sleep 30'], { cols: 80, rows: 24, cwd: '/', env });
    let exited = false;
    const up = rawBytes(terminal, (bytes) => bytes.includes('up'));
    await up;
    const marker = new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      terminal.onData((data) => {
        chunks.push(Buffer.from(data));
        if (endsWithBel(Buffer.concat(chunks))) resolve(Buffer.concat(chunks));
      });
    });
    const gone = new Promise<void>((resolve) => terminal.onExit(() => ((exited = true), resolve())));
    process.kill(terminal.pid, KILL_REQUEST);
    expect((await marker).toString('latin1')).toContain(`\x1b]6972;${NONCE};s9\x07`);
    expect(exited).toBe(false); // the reporter stays until the hang-up
    expect(HANG_UP).toBe('SIGHUP');
    terminal.dispose(); // closes the terminal and sends SIGHUP, as node-pty does
    await gone;
  });
});

describe("the zygote's lines", () => {
  function zygote() {
    const child = spawn(HELPER, ['--zygote', '/nonexistent/zodex-socket'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines: string[] = [];
    let pending = '';
    const waiters: (() => void)[] = [];
    child.stdout.setEncoding('latin1');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      for (let at; (at = pending.indexOf('\n')) !== -1; pending = pending.slice(at + 1)) lines.push(pending.slice(0, at));
      for (const wake of waiters.splice(0)) wake();
    });
    const line = async (n: number) => {
      while (lines.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return lines[n - 1]!;
    };
    return { child, line };
  }

  it('answer a request it refuses with "s NONCE 0", and a standby that starts and ends with "s NONCE PID", "e PID STATUS"', async () => {
    const { child, line } = zygote();
    try {
      child.stdin.write(zygoteRequest('not-hex', '/dev/pts/0'));
      expect(await line(1)).toBe('s not-hex 0');
      expect(parseZygoteReport(await line(1))).toEqual({ kind: 'started', nonce: 'not-hex', pid: 0 });
      const fds = openTerminal(80, 24);
      child.stdin.write(zygoteRequest('abc123', fds.pty));
      const started = parseZygoteReport(await line(2));
      expect(started).toMatchObject({ kind: 'started', nonce: 'abc123' });
      const pid = (started as { pid: number }).pid;
      expect(pid).toBeGreaterThan(0);
      // Its standby finds no socket to say hello on, and ends with 129.
      expect(await line(3)).toBe(`e ${pid} x129`);
      expect(parseZygoteReport(await line(3))).toEqual({ kind: 'ended', pid, status: { exitCode: 129, signal: undefined } });
      fs.closeSync(fds.master);
      fs.closeSync(fds.slave);
    } finally {
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('"NONCE TTY run" and a command frame fork the reporter itself onto the terminal: the marker, then "s", then "e" on the hang-up', async () => {
    const { child, line } = zygote();
    const fds = openTerminal(80, 24);
    const reader = new tty.ReadStream(fds.master);
    reader.on('error', () => {});
    try {
      const bytes = new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [];
        reader.on('data', (data: Buffer) => {
          chunks.push(data);
          if (endsWithBel(Buffer.concat(chunks))) resolve(Buffer.concat(chunks));
        });
      });
      child.stdin.write(zygoteRequest('abc124', fds.pty, { cwd: '/tmp', file: '/bin/sh', args: ['-c', 'printf "%s" "$PWD $V"; exit 5'], env: { V: 'v' } }));
      const started = parseZygoteReport(await line(1));
      expect(started).toMatchObject({ kind: 'started', nonce: 'abc124' });
      expect((await bytes).toString('latin1')).toBe('/tmp v\x1b]6972;abc124;x5\x07');
      reader.destroy(); // closes the master: the hang-up
      expect(parseZygoteReport(await line(2))).toMatchObject({ kind: 'ended', pid: (started as { pid: number }).pid });
    } finally {
      fs.closeSync(fds.slave);
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('are refused when they are not of that form, and a hello is the nonce up to its newline', () => {
    for (const line of ['', 's', 's abc', 's abc x', 'e 1', 'e x s9', 'q 1 2', 's a 1 extra']) expect(parseZygoteReport(line)).toBeUndefined();
    expect(parseHello('abc')).toBeUndefined();
    expect(parseHello('abc\nrest')).toBe('abc');
  });
});
