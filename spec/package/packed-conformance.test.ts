// zodex-conformance from its packed package, as a stranger gets it: `npm pack` of
// packages/conformance, the tarball installed alone into an empty folder (`npm ci --offline
// --ignore-scripts` from a lockfile made of this checkout's: npm's cache holds every package since
// `npm ci`, so no registry), then the installed runner against this checkout's zodexd:
//   - as started by default, over stdio, MCP 2025-11-25, every profile: nothing fails;
//   - configured unlike the default, over HTTP, MCP 2026-07-28: Sprite mode (other instructions),
//     --annotations truthful, confined to one workspace folder (confined() below) and started
//     there; the runner given that folder as --workspace. The portable profile passes whole,
//     leaving the folder as it found it, and the zodex-surface profile tells this server from the
//     default one.
// The two runs go side by side (each with one worker: this file runs beside the unit tests).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs helper without types
import { offlineLock, packageJson } from './offline-lock.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SUITE = 'packages/conformance'; // the zodex-conformance workspace package
const ZODEXD = path.join(repo, 'dist/cli/zodexd.js');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-packed-'));
const folder = path.join(scratch, 'empty');
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }), 120_000);

// zodexd confined to one workspace folder by its own sandbox (--sandbox workspace-write, enforced
// by the kernel in zodex-spawn: docs/bounds.md): no command can write outside the call's workdir, the
// workspace (--writable-root) and a private /tmp, and apply_patch obeys the same rule; commands
// default to the folder.
function confined(workspace: string, flags: string[]): { command: string[]; env: Record<string, string> } {
  const sandbox = ['--sandbox', 'workspace-write', '--writable-root', workspace, '--default-workdir', workspace];
  // Its state and spill files in the scratch folder: a zodexd keeps the spill files of its last
  // commands for a day, which the system's temp folder would collect run after run.
  const env = { XDG_STATE_HOME: path.join(scratch, 'confined-state'), ZODEX_SPILL_DIR: path.join(scratch, 'confined-spill') };
  return { command: [process.execPath, ZODEXD, ...flags, ...sandbox], env };
}

beforeAll(() => {
  const npm = (args: string[], cwd: string) => execFileSync('npm', [...args, '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  npm(['pack', '--ignore-scripts', '--pack-destination', scratch], path.join(repo, SUITE));
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, SUITE, 'package.json'), 'utf8')) as { name: string; version: string };
  const tarball = `../${pkg.name}-${pkg.version}.tgz`;
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify(packageJson(pkg.name, tarball)));
  fs.writeFileSync(path.join(folder, 'package-lock.json'), JSON.stringify(offlineLock(repo, SUITE, tarball)));
  npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], folder);
}, 300_000);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

// The installed runner, from the empty folder, with nothing of this checkout's environment.
function runSuite(args: string[]): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|ZODEX_CONFORMANCE_)/i.test(name)));
  env.ZODEX_CONFORMANCE_WORKERS = '1'; // this file runs beside the other spec files; the timing tests want a core
  // The installed suite has no shared/ beside it: point it at Codex's corpus (patch.corpus), which
  // ZODEX_NO_SKIP (CI) requires.
  env.ZODEX_CODEX_CORPUS ??= path.resolve(repo, '../shared/corpus/codex-apply-patch');
  // The runner keeps its results folder (it prints the path); here it goes with the scratch folder.
  env.TMPDIR = path.join(scratch, 'tmp');
  fs.mkdirSync(env.TMPDIR, { recursive: true });
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', 'zodex-conformance', ...args], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 840_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

// The total line of a target: "remote-stdio: portable 37 passed; zodex-surface 21 passed; ...".
function totals(run: Run, target: string): Record<string, Record<string, number>> {
  const line = new RegExp(`^${target}: (.*)$`, 'm').exec(run.stdout)?.[1];
  expect(line, `no total for ${target}:\n${run.stdout.slice(-3000)}\n${run.stderr.slice(-3000)}`).toBeDefined();
  return Object.fromEntries(
    line!.split('; ').map((part) => {
      const [profile, ...counts] = part.split(/ (?=\d)|, /);
      return [profile!, Object.fromEntries(counts.map((count) => [count.split(' ')[1]!, Number(count.split(' ')[0])]))];
    }),
  );
}

const failures = (run: Run) =>
  run.stdout
    .split('\n')
    .filter((line) => /^\S+ +(FAIL|MISS|SKIP) /.test(line))
    .join('\n');

async function startHttp(command: string[], env: Record<string, string>): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(command[0]!, [...command.slice(1), '--transport', 'http', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving over http on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`zodexd exited before serving:\n${stderr}`)));
  });
  return {
    url,
    // SIGTERM: zodexd drains and kills its commands
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

describe.concurrent('the packed suite, installed alone in an empty folder', () => {
  it('holds a default zodexd over stdio (MCP 2025-11-25) to every profile, and it passes', async () => {
    expect(fs.existsSync(path.join(folder, 'node_modules/zodex-conformance/requirements.ts'))).toBe(true);
    expect(fs.existsSync(path.join(folder, 'node_modules/zodex')), 'the suite installs without the server package').toBe(false);
    const run = await runSuite(['--stdio', `node ${ZODEXD}`, '--profile', 'all']);
    const total = totals(run, 'remote-stdio');
    console.log(`default zodexd, stdio, 2025-11-25, --profile all: ${JSON.stringify(total)}`);
    expect(failures(run), run.stderr.slice(-3000)).toBe('');
    expect(total.portable!.passed).toBeGreaterThan(30);
    expect(total['zodex-surface']!.passed).toBeGreaterThan(15);
    expect(total.zodexd!.passed).toBeGreaterThan(5);
    expect(run.status).toBe(0);
  }, 900_000);

  it('holds a zodexd configured unlike the default, over HTTP (MCP 2026-07-28), to the portable profile, and it passes whole', async () => {
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(scratch, 'workspace-')));
    const { command, env } = confined(workspace, ['--mode', 'sprite', '--annotations', 'truthful']);
    const server = await startHttp(command, env);
    try {
      // confined indeed: a write outside the workspace is refused by the kernel, and the result says so
      const client = new Client({ name: 'packed-suite-check', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const escape = await client.callTool({ name: 'exec_command', arguments: { cmd: `touch ${path.join(repo, 'escaped')}; echo "rc=$?"` } });
      await client.close();
      expect((escape.structuredContent as { output: string }).output).toMatch(/Read-only file system[\s\S]*rc=1/);
      expect((escape.structuredContent as { sandbox_refused?: string }).sandbox_refused).toBeDefined();
      expect(fs.existsSync(path.join(repo, 'escaped'))).toBe(false);

      const run = await runSuite(['--url', server.url, '--protocol', 'modern', '--workspace', workspace, '--profile', 'portable']);
      const total = totals(run, 'remote-http-modern');
      console.log(`zodexd configured unlike the default, HTTP, 2026-07-28, --profile portable: ${JSON.stringify(total)}`);
      expect(failures(run), run.stderr.slice(-3000)).toBe('');
      expect(Object.keys(total.portable!), 'every portable requirement ran and passed').toEqual(['passed']);
      expect(run.status).toBe(0);
      expect(fs.readdirSync(workspace), 'the suite leaves the workspace as it found it').toEqual([]);

      // zodex's own surface is what tells this server from the default one: its annotations.
      const surface = await runSuite([
        '--url',
        server.url,
        '--protocol',
        'modern',
        '--workspace',
        workspace,
        '--profile',
        'zodex-surface',
        '--grep',
        'surface\\.(annotations|instructions):',
      ]);
      expect(surface.stdout).toMatch(/^zodex-surface +FAIL surface\.annotations +exec_command\b.*Hint"?: (true|false)/m);
      expect(surface.stdout).toMatch(/^zodex-surface +PASS surface\.instructions /m);
      expect(surface.status).toBe(1);
    } finally {
      await server.stop();
    }
  }, 900_000);
});
