import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnPty } from '../../src/exec/launch/launcher.js';
import type { Terminal, TerminalExit } from '../../src/exec/launch/terminal.js';
import { StandbyPool } from '../../src/exec/launch/standby.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HELPER = process.env.ZODEX_SPAWN_HELPER ?? path.join(REPO, 'build/Release/zodex-spawn');
const pools: StandbyPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

function run(pty: Terminal): Promise<{ output: string; exit: TerminalExit }> {
  let output = '';
  pty.onData((bytes) => (output += bytes.toString('utf8')));
  return new Promise((resolve) => pty.onExit((exit) => resolve({ output, exit })));
}

async function ready(pool: StandbyPool, spec: Parameters<StandbyPool['take']>[0]): Promise<Terminal> {
  for (let i = 0; i < 200; i++) {
    const pty = pool.take(spec);
    if (pty) return pty;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no standby became ready within 4 s');
}

function parentOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

// The descriptors the command that zodex-spawn `pid` runs holds, read from outside.
async function commandDescriptors(pid: number): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (parentOf(Number(entry)) === pid && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith('/bin/sleep')) {
          return fs.readdirSync(`/proc/${entry}/fd`).sort();
        }
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no command under ${pid}`);
}

// Reads a terminal running X_4MB to its end: bytes, reads, and how many distinct buffers they came in.
const X_4MB = "head -c 4000000 /dev/zero | tr '\\0' x";
async function readBuffers(pty: Terminal): Promise<{ bytes: number; count: number; buffers: number; exit: TerminalExit }> {
  const memory = new Set<ArrayBufferLike>();
  let bytes = 0;
  let count = 0;
  pty.onData((data) => {
    memory.add(data.buffer);
    bytes += data.length;
    count++;
    expect(data.every((byte) => byte === 0x78)).toBe(true); // whole at the time of the call
  });
  const exit = await new Promise<TerminalExit>((resolve) => pty.onExit(resolve));
  pty.dispose();
  return { bytes, count, buffers: memory.size, exit };
}

describe('standby terminals', () => {
  it('run the command they are given, in its cwd and environment, on a terminal', async () => {
    const pool = new StandbyPool(HELPER, { cols: 200, rows: 50 });
    pools.push(pool);
    pool.fill();
    const pty = await ready(pool, {
      cwd: '/tmp',
      file: '/bin/sh',
      args: ['-c', 'pwd; echo "$ZODEX_PROBE"; test -t 1 && echo tty; stty size; exit 7'],
      env: { ZODEX_PROBE: 'from-the-spec', PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    const { output, exit } = await run(pty);
    expect(output).toBe('/tmp\nfrom-the-spec\ntty\n50 200\n');
    expect(exit).toMatchObject({ exitCode: 7, complete: true });
    pty.dispose();
  });

  it('read all output into one reused buffer: a read allocates nothing (issue 18: RSS growth)', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    pool.fill();
    const reads = await readBuffers(await ready(pool, { cwd: '/', file: '/bin/sh', args: ['-c', X_4MB], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }));
    expect(reads).toMatchObject({ bytes: 4_000_000, buffers: 1 }); // node's default reader allocates a new buffer per read
    expect(reads.count).toBeGreaterThan(10);
  });

  it('node-pty direct terminals read into one reused buffer too, with every byte and the status (issue 18: coloured 50 MB grew RSS 47 MiB there)', async () => {
    const pty = spawnPty({
      spawnHelper: HELPER,
      cwd: '/',
      file: '/bin/sh',
      args: ['-c', `${X_4MB}; exit 5`],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      cols: 80,
      rows: 24,
    });
    const reads = await readBuffers(pty);
    expect(reads).toMatchObject({ bytes: 4_000_000, buffers: 1, exit: { exitCode: 5, complete: true } }); // node-pty's own reader: a new 64 KiB buffer per read
    expect(reads.count).toBeGreaterThan(10);
  });

  it('answer undefined when none is ready, refill, and report a bad cwd as the command failing', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    expect(pool.take({ cwd: '/', file: '/bin/true', args: [], env: {} })).toBeUndefined(); // never filled
    const pty = await ready(pool, { cwd: '/definitely/not/here', file: '/bin/true', args: [], env: {} }); // take() refilled it
    const { output, exit } = await run(pty);
    expect(output).toMatch(/cannot enter \/definitely\/not\/here/);
    expect(exit.exitCode).toBe(127);
    pty.dispose();
  });

  it('are started by the zygote, not by forking this process, and report a SIGKILL as an incomplete exit', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    pool.fill();
    const pty = await ready(pool, { cwd: '/', file: '/bin/sh', args: ['-c', 'echo started; sleep 30'], env: {} });
    const zygote = parentOf(pty.pid);
    expect(zygote).not.toBe(process.pid);
    expect(fs.readFileSync(`/proc/${zygote}/cmdline`, 'utf8').split('\0')).toContain('--zygote');
    expect(parentOf(zygote)).toBe(process.pid);
    // Killed once it has printed (not after a fixed wait, which a loaded machine outlasts).
    let output = '';
    let printed!: () => void;
    const started = new Promise<void>((resolve) => (printed = resolve));
    pty.onData((bytes) => {
      output += bytes.toString('utf8');
      if (output.includes('started')) printed();
    });
    const exited = new Promise<TerminalExit>((resolve) => pty.onExit(resolve));
    await started;
    process.kill(pty.pid, 'SIGKILL'); // no end marker: the exit can only come from the zygote's report
    const exit = await exited;
    expect(output).toContain('started');
    expect(exit).toMatchObject({ signal: 9, complete: false });
    pty.dispose();
  });

  it("let the zygote fork the command's reporter itself when none is waiting, and none once it is gone", async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    const spec = { cwd: '/tmp', file: '/bin/sh', args: ['-c', 'echo fresh; pwd; echo "$V"; tty; exit 3'], env: { V: 'from the frame' } };
    expect(pool.take(spec)).toBeUndefined(); // never filled
    const pty = await pool.run(spec);
    expect(pty).toBeDefined();
    // the reporter is the zygote's own child, not an exec of zodex-spawn
    const zygotePid = (pool as unknown as { zygote: { child: { pid: number } } }).zygote.child.pid;
    expect(parentOf(pty!.pid)).toBe(zygotePid);
    expect(fs.readFileSync(`/proc/${pty!.pid}/cmdline`, 'utf8').split('\0')).toContain('--zygote');
    const { output, exit } = await run(pty!);
    expect(output).toMatch(/^fresh\n\/tmp\nfrom the frame\n\/dev\/pts\/\d+\n$/);
    expect(exit).toEqual({ exitCode: 3, signal: undefined, complete: true });
    pty!.dispose();
    process.kill((pool as unknown as { zygote: { child: { pid: number } } }).zygote.child.pid, 'SIGKILL');
    for (let i = 0; i < 100 && (pool as unknown as { zygote: { usable: boolean } }).zygote.usable; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await pool.run(spec)).toBeUndefined();
  });

  it('fall back to node-pty when the zygote is gone', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    const zygote = (pool as unknown as { zygote: { child: { pid: number } } }).zygote.child;
    process.kill(zygote.pid, 'SIGKILL');
    for (let i = 0; i < 100 && (pool as unknown as { zygote: { usable: boolean } }).zygote.usable; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    pool.fill();
    const pty = await ready(pool, { cwd: '/', file: '/bin/sh', args: ['-c', 'echo fine'], env: {} });
    expect(parentOf(pty.pid)).toBe(process.pid);
    const { output, exit } = await run(pty);
    expect(output).toBe('fine\n');
    expect(exit).toMatchObject({ exitCode: 0, complete: true });
    pty.dispose();
  });

  it('stop asking the zygote once it refuses a standby, and start them with node-pty', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    const zygote = (
      pool as unknown as {
        zygote: { usable: boolean; start(nonce: string, cols: number, rows: number): { onExit(listener: (exit: { exitCode: number }) => void): void } };
      }
    ).zygote;
    const refused = zygote.start('not-a-nonce', 80, 24)!; // not hex: the zygote answers pid 0
    const exit = await new Promise<{ exitCode: number }>((resolve) => refused.onExit(resolve));
    expect(exit.exitCode).toBe(127);
    expect(zygote.usable).toBe(false);
    pool.fill();
    const pty = await ready(pool, { cwd: '/', file: '/bin/sh', args: ['-c', 'echo fine'], env: {} });
    expect(parentOf(pty.pid)).toBe(process.pid);
    expect((await run(pty)).output).toBe('fine\n');
    pty.dispose();
  });

  it("give a command no descriptor of this process beyond 0, 1 and 2 (other terminals' included)", async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(pool);
    pool.fill();
    // node-pty opens every terminal without close-on-exec: the standbys' masters are there to leak.
    const spec = { cwd: '/', file: '/bin/sleep', args: ['5'], env: {} };
    const viaStandby = await ready(pool, spec);
    const direct = spawnPty({ spawnHelper: HELPER, ...spec, cols: 80, rows: 24 });
    try {
      expect(await commandDescriptors(viaStandby.pid)).toEqual(['0', '1', '2']);
      expect(await commandDescriptors(direct.pid)).toEqual(['0', '1', '2']);
    } finally {
      viaStandby.dispose();
      direct.dispose();
    }
  });

  it.each([
    ['close_range', undefined],
    ['every /proc/self/fd entry', 'proc'],
    ['every descriptor up to the limit', 'limit'],
  ])(
    'give a command none of 2,000 inherited descriptors (%s)',
    async (_way, forced) => {
      // The spawning parent (a shell here) holds 2,000 inheritable descriptors, then becomes zodex-spawn.
      const opener =
        'ulimit -n 4096; i=3; while [ $i -le 2002 ]; do eval "exec $i</dev/null"; i=$((i+1)); done; ls /proc/$$/fd | wc -l >&2; exec "$0" 0123abcd /bin/sleep 5';
      const child = spawn('/bin/bash', ['-c', opener, HELPER], {
        env: { ...process.env, ...(forced ? { ZODEX_SPAWN_CLOSE: forced } : {}) },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      }); // its own group: zodex-spawn kills its group
      let opened = '';
      child.stderr!.on('data', (chunk: Buffer) => (opened += chunk.toString()));
      try {
        const seen = await commandDescriptors(child.pid!);
        expect(Number(opened.trim())).toBeGreaterThanOrEqual(2003); // the parent really held them
        expect(seen).toEqual(['0', '1', '2']);
      } finally {
        child.kill('SIGHUP'); // zodex-spawn takes its command along
      }
    },
    15_000,
  );

  it("sweep the folders of servers that died, and leave a live pool's alone", async () => {
    const os = await import('node:os');
    const live = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pools.push(live);
    const dead = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-standby-'));
    fs.writeFileSync(path.join(dead, 's'), ''); // no one listens: what a SIGKILLed server leaves
    expect(await live.sweepStale()).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync((live as unknown as { folder: string }).folder)).toBe(true);
  });

  it('clean up their folder and processes when closed', async () => {
    const pool = new StandbyPool(HELPER, { cols: 80, rows: 24 });
    pool.fill();
    await ready(pool, { cwd: '/', file: '/bin/true', args: [], env: {} }).then((pty) => run(pty).then(() => pty.dispose()));
    const folder = (pool as unknown as { folder: string }).folder;
    expect(fs.existsSync(folder)).toBe(true);
    pool.close();
    expect(fs.existsSync(folder)).toBe(false);
  });
});
