import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/commands/command.js';
import { localTime, parseDuration, shortDuration, table } from '../../src/cli/commands/format.js';
import { COMMANDS, runZodex } from '../../src/cli/zodex.js';
import { databasePath, openStore, SCHEMA_VERSION } from '../../src/features/store/index.js';
import { compileSources } from '../features/store/support/compile.js';
import { manualClock, tempDir } from '../features/store/support/temp.js';

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0);

async function zodex(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, now: () => NOW };
  const code = await runZodex(argv, io);
  return { code, stdout, stderr };
}

// Two agents, one named, over the last three days.
function populate(stateDir: string) {
  const clock = manualClock(NOW - 3 * 86_400_000);
  const store = openStore({
    stateDir,
    warn: (message) => {
      throw new Error(message);
    },
    now: clock.now,
  });
  const server = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
  const alpha = store.registerAgent(server);
  clock.advance(1);
  const beta = store.registerAgent(server);
  store.setAlias(alpha, 'Rindle implementation', 'agent');
  const run = (agentId: string, summary: string, ms: number, finish: Record<string, unknown>) => {
    const id = store.startInvocation({ agentId, tool: 'exec_command', workdir: '/work/rindle', summary });
    clock.advance(ms);
    store.finishInvocation(id, { resultSummary: 'done', isError: false, ...finish });
  };
  run(alpha, 'git status --short', 300, { exitCode: 0, terminationReason: 'exit' }); // 3 days ago
  clock.set(NOW - 2 * 3_600_000);
  run(beta, 'npm test', 1_234, { exitCode: 1, terminationReason: 'exit', isError: false });
  clock.set(NOW - 10 * 60_000);
  run(alpha, 'sleep 999', 125_000, { terminationReason: 'timeout', sessionId: 'sfeedfacecafe', outputFile: '/tmp/out.txt' });
  store.endAgent(beta);
  store.close();
  return { alpha, beta, server };
}

describe('zodex dispatcher', () => {
  it('prints help listing every subcommand', async () => {
    const { code, stdout } = await zodex(['--help']);
    expect(code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(stdout).toContain(`  ${name}`);
    expect(stdout).toMatch(/^Usage: zodex <command>/);
    expect((await zodex(['help', 'history'])).stdout).toMatch(/^Usage: zodex history/);
    expect((await zodex(['agents', '-h'])).stdout).toMatch(/^Usage: zodex agents/);
  });

  it('exits 2 with usage on stderr without a command, or with an unknown one', async () => {
    expect(await zodex([])).toMatchObject({ code: 2, stdout: '' });
    const unknown = await zodex(['histroy']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe(`zodex: unknown command "histroy"; commands: ${Object.keys(COMMANDS).join(', ')} (see zodex --help)\n`);
    expect(Object.keys(COMMANDS)).toEqual(expect.arrayContaining(['history', 'agents']));
    expect((await zodex(['toString'])).code).toBe(2);
  });

  it('prints the version', async () => {
    expect((await zodex(['--version'])).stdout).toMatch(/^zodex \d+\.\d+\.\d+/);
  });
});

describe('zodex history', () => {
  it('prints an aligned table, oldest first, with local times and short durations', async () => {
    const stateDir = tempDir();
    const { alpha, beta } = populate(stateDir);
    const { code, stdout, stderr } = await zodex(['history', '--state-dir', stateDir]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^TIME\s+AGENT\s+TOOL\s+DURATION\s+RESULT\s+WORKDIR\s+SUMMARY$/);
    expect(lines[1]).toMatch(
      new RegExp(`^${localTime(NOW - 3 * 86_400_000)}  ${alpha} Rindle implementation\\s+exec_command  0\\.3s\\s+exit 0\\s+/work/rindle  git status --short$`),
    );
    expect(lines[2]).toMatch(new RegExp(`${beta}\\s+exec_command  1\\.2s\\s+exit 1 `));
    expect(lines[3]).toMatch(/exec_command  2m05s\s+timeout\s+\/work\/rindle  sleep 999$/);
    // columns line up
    const column = (line: string) => line.indexOf('exec_command');
    expect(new Set(lines.slice(1).map(column)).size).toBe(1);
    expect(lines[0]!.indexOf('TOOL')).toBe(column(lines[1]!));
  });

  it('filters with --agent and --since', async () => {
    const stateDir = tempDir();
    const { alpha } = populate(stateDir);
    const byAgent = await zodex(['history', '--agent', alpha.toUpperCase(), '--state-dir', stateDir]);
    expect(byAgent.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(byAgent.stdout).not.toContain('npm test');
    const recent = await zodex(['history', '--since', '3h', '--state-dir', stateDir]);
    expect(recent.stdout).toContain('npm test');
    expect(recent.stdout).not.toContain('git status');
    const last30m = await zodex(['history', '--since', '30m', '--agent', alpha, '--state-dir', stateDir]);
    expect(last30m.stdout.trimEnd().split('\n')).toHaveLength(2);
    const none = await zodex(['history', '--since', '1m', '--state-dir', stateDir]);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'zodex history: no invocations match\n' });
  });

  it('prints JSON rows with every recorded field and ISO times', async () => {
    const stateDir = tempDir();
    const { alpha, server } = populate(stateDir);
    const { code, stdout } = await zodex(['history', '--json', '--since', '7d', '--state-dir', stateDir]);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout);
    expect(rows).toHaveLength(3);
    expect(rows[2]).toEqual({
      kind: 'invocation',
      id: 3,
      actor: 'agent',
      agentId: alpha,
      agentAlias: 'Rindle implementation',
      serverId: server,
      tool: 'exec_command',
      workdir: '/work/rindle',
      summary: 'sleep 999',
      startedAt: new Date(NOW - 10 * 60_000).toISOString(),
      endedAt: new Date(NOW - 10 * 60_000 + 125_000).toISOString(),
      durationMs: 125_000,
      status: 'ok',
      resultSummary: 'done',
      isError: false,
      exitCode: null,
      terminationReason: 'timeout',
      sessionId: 'sfeedfacecafe',
      outputFile: '/tmp/out.txt',
    });
  });

  it('finds the default state dir through XDG_STATE_HOME', async () => {
    const xdg = tempDir();
    populate(path.join(xdg, 'zodex'));
    const { stdout } = await zodex(['history', '--json'], { XDG_STATE_HOME: xdg });
    expect(JSON.parse(stdout)).toHaveLength(3);
  });

  it('says so when nothing was recorded yet', async () => {
    const stateDir = path.join(tempDir(), 'never-used');
    expect(await zodex(['history', '--state-dir', stateDir])).toEqual({
      code: 0,
      stdout: '',
      stderr: `zodex history: nothing recorded yet (no database in ${stateDir})\n`,
    });
    expect((await zodex(['history', '--json', '--state-dir', stateDir])).stdout).toBe('[]\n');
    expect(fs.existsSync(stateDir)).toBe(false); // a reader creates nothing
  });

  it('rejects bad flags with exit 2 and one line', async () => {
    for (const argv of [['--since', '2 days'], ['--since', '-5m'], ['--agent', 'toolong'], ['--limit', '0'], ['--bogus'], ['extra']]) {
      const { code, stderr, stdout } = await zodex(['history', ...argv, '--state-dir', tempDir()]);
      expect(code, argv.join(' ')).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/^zodex history: .*; see zodex history --help\n$/);
    }
  });

  it('fails with exit 1 and the reason on a database from a newer zodex', async () => {
    const stateDir = tempDir();
    populate(stateDir);
    const db = new Database(databasePath(stateDir));
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    const { code, stderr } = await zodex(['history', '--state-dir', stateDir]);
    expect(code).toBe(1);
    expect(stderr).toContain('newer than this zodex knows');
  });

  it('fails with exit 1 on a corrupt database', async () => {
    const stateDir = tempDir();
    fs.writeFileSync(databasePath(stateDir), Buffer.alloc(8192, 7));
    const { code, stderr } = await zodex(['agents', '--state-dir', stateDir]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^zodex agents: state database .* is unusable: it is corrupt/);
  });
});

describe('zodex agents', () => {
  it('lists agents with aliases and state, as a table and as JSON', async () => {
    const stateDir = tempDir();
    const { alpha, beta, server } = populate(stateDir);
    const { stdout } = await zodex(['agents', '--state-dir', stateDir]);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^AGENT\s+ALIAS\s+STATE\s+STARTED\s+LAST CALL\s+CALLS\s+SERVER$/);
    // The populating process closed its store: its agents are over.
    expect(lines[1]).toMatch(new RegExp(`^${alpha}\\s+Rindle implementation\\s+ended\\s+\\S+ \\S+\\s+\\S+ \\S+\\s+2\\s+${server}$`));
    expect(lines[2]).toMatch(new RegExp(`^${beta}\\s+-\\s+ended\\s+.*\\s+1\\s+${server}$`));

    const json = JSON.parse((await zodex(['agents', '--json', '--state-dir', stateDir])).stdout);
    expect(json[0]).toMatchObject({ agentId: alpha, alias: 'Rindle implementation', aliasSetBy: 'agent', state: 'ended', live: false, invocations: 2 });
    expect(json[0].startedAt).toBe(new Date(NOW - 3 * 86_400_000).toISOString());
    expect(json[1].startedAt).toBe(new Date(NOW - 3 * 86_400_000 + 1).toISOString());
    expect(json[1]).toMatchObject({ agentId: beta, alias: '', aliasSetAt: null, state: 'ended' });
  });

  it('shows live agents of a running server, and --live filters', async () => {
    const stateDir = tempDir();
    const clock = manualClock(NOW - 1_000); // the CLI's clock is NOW: the heartbeat is fresh
    const store = openStore({ stateDir, warn: () => {}, now: clock.now });
    const live = store.registerAgent(store.registerServer({ transport: 'http', pid: process.pid, mode: 'local' }));
    clock.advance(1);
    const gone = store.registerAgent('zdeadserver0');
    store.setAlias(live, 'on it', 'operator');
    try {
      const all = (await zodex(['agents', '--state-dir', stateDir])).stdout;
      expect(all).toMatch(new RegExp(`${live}\\s+on it\\s+live`));
      expect(all).toMatch(new RegExp(`${gone}\\s+-\\s+lost`));
      const limited = JSON.parse((await zodex(['agents', '--limit', '1', '--json', '--state-dir', stateDir])).stdout);
      expect(limited.map((agent: { agentId: string }) => agent.agentId)).toEqual([gone]);
      const onlyLive = JSON.parse((await zodex(['agents', '--live', '--json', '--state-dir', stateDir])).stdout);
      expect(onlyLive.map((agent: { agentId: string }) => agent.agentId)).toEqual([live]);
    } finally {
      store.close();
    }
  });
});

describe('formatting', () => {
  it('parses durations', () => {
    expect(parseDuration('--since', '30m')).toBe(1_800_000);
    expect(parseDuration('--since', '2h')).toBe(7_200_000);
    expect(parseDuration('--since', '7d')).toBe(604_800_000);
    expect(parseDuration('--since', '1.5h')).toBe(5_400_000);
    expect(parseDuration('--since', '45s')).toBe(45_000);
    expect(parseDuration('--since', '1w')).toBe(604_800_000);
    expect(() => parseDuration('--since', '7')).toThrow(/write e\.g\. --since 30m, 2h or 7d/);
    expect(() => parseDuration('--since', '0m')).toThrow();
  });

  it('formats durations and tables', () => {
    expect(shortDuration(300)).toBe('0.3s');
    expect(shortDuration(1_234)).toBe('1.2s');
    expect(shortDuration(59_949)).toBe('59.9s');
    expect(shortDuration(125_000)).toBe('2m05s');
    expect(shortDuration(3_723_000)).toBe('1h02m');
    expect(
      table(
        ['A', 'BB'],
        [
          ['xxx', 'y'],
          ['z', 'long last column'],
        ],
      ),
    ).toBe('A    BB\nxxx  y\nz    long last column\n');
  });
});

describe('the built zodex program', () => {
  let compiled: string;
  beforeAll(() => {
    compiled = compileSources();
  });
  afterAll(() => {
    if (compiled) fs.rmSync(compiled, { recursive: true, force: true });
  });

  it('runs as a program: history --json and agents against a temp state dir', () => {
    const stateDir = tempDir();
    const { alpha } = populate(stateDir);
    const program = path.join(compiled, 'src', 'cli', 'zodex.js');
    expect(fs.readFileSync(program, 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
    const history = JSON.parse(execFileSync(process.execPath, [program, 'history', '--json', '--state-dir', stateDir], { encoding: 'utf8' }));
    expect(history).toHaveLength(3);
    const agents = execFileSync(process.execPath, [program, 'agents', '--state-dir', stateDir], { encoding: 'utf8' });
    expect(agents).toContain(alpha);
    // through a symlink, as npm installs the bin
    const link = path.join(tempDir(), 'zodex');
    fs.symlinkSync(program, link);
    const viaLink = spawnSync(process.execPath, [link, 'nope'], { encoding: 'utf8' });
    expect(viaLink.status).toBe(2);
    expect(viaLink.stderr).toContain('unknown command "nope"');
  });
});
