// How the suite reaches an implementation: a target starts (or finds) a server and hands back
// an MCP client on it. Managed targets start this checkout's zodexd with per-test flags;
// remote targets dial a server someone else started (a URL, or a command given to the runner).
// Everything the suite checks on the server's machine goes through the tools themselves, so
// the same test runs against a server on this host, in a container, or anywhere else.

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ModernClientTransport, ModernHttpPipe } from './modern.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// This package's own folder (its specs, patch scenarios), and the zodex checkout it lives in
// (packages/conformance): zodexd and the tools its own end-to-end requirements start.
export const PACKAGE_ROOT = path.resolve(here, '..');
export const REPO_ROOT = path.resolve(PACKAGE_ROOT, '../..');
export const ZODEXD = process.env.ZODEXD_BIN ?? path.join(REPO_ROOT, 'dist/cli/zodexd.js');

// The folder of a package this one depends on (its devDependencies too), wherever npm put it.
export function packageDir(name: string): string {
  return path.dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

export type TargetName = 'stdio' | 'http' | 'container' | 'sandbox' | 'remote-stdio' | 'remote-http';
// The protocol era the suite's client speaks: 2025-11-25 with initialize and sessions, or
// 2026-07-28 with per-request _meta (modern.ts).
export type Protocol = 'legacy' | 'modern';

export interface ServerOptions {
  args?: string[]; // extra zodexd flags (managed targets only)
  env?: Record<string, string>;
  cwd?: string; // the directory zodexd is started in (managed targets only)
}

// A zodexd this suite started: its process, for tests that look at it from outside.
export interface ManagedServer {
  process: ChildProcess;
  pid: number;
  stderr(): string;
  url: string | undefined;
  exited: Promise<number | null>;
}

export interface Connection {
  client: Client;
  server: ManagedServer | undefined;
  // HTTP targets: where the server is and the headers every request needs.
  endpoint?: { url: string; headers: Record<string, string> };
  close(): Promise<void>;
}

export interface Target {
  name: TargetName;
  protocol: Protocol;
  managed: boolean; // true: per-test flags and process inspection are possible
  transport: 'stdio' | 'http';
  connect(options?: ServerOptions): Promise<Connection>;
}

function newClient(): Client {
  return new Client({ name: 'zodex-conformance', version: '1.0.0' }, { capabilities: {} });
}

export function splitCommand(command: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) words.push(match[1]?.replace(/\\(.)/g, '$1') ?? match[2] ?? match[3]!);
  return words;
}

// Starts `zodexd --transport http --listen 127.0.0.1:0 ...` and waits for its "serving" line.
export async function startHttpServer(args: string[] = [], env: Record<string, string> = {}, cwd?: string): Promise<ManagedServer & { url: string }> {
  const hasListen = args.some((arg) => arg === '--listen' || arg.startsWith('--listen='));
  const child = spawn(process.execPath, [ZODEXD, '--transport', 'http', ...(hasListen ? [] : ['--listen', '127.0.0.1:0']), ...args], {
    env: { ...process.env, ...env },
    ...(cwd ? { cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A server that did not come up in time is killed, not left behind as an orphan.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`zodexd did not report its URL within 10 s; stderr:\n${stderr}`));
    }, 10_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving over http on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`zodexd exited with ${code} before serving; stderr:\n${stderr}`));
    });
  });
  return { process: child, pid: child.pid!, stderr: () => stderr, url, exited };
}

// Runs `body` against a zodexd of its own (started with `args`), stopped afterwards.
export async function withServer<T>(
  args: string[],
  body: (server: ManagedServer & { url: string }) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const server = await startHttpServer(args, env);
  try {
    return await body(server);
  } finally {
    await stopServer(server);
  }
}

export async function stopServer(server: ManagedServer): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return;
  server.process.kill('SIGTERM');
  const timer = setTimeout(() => server.process.kill('SIGKILL'), 5_000);
  await server.exited;
  clearTimeout(timer);
}

function stdioTarget(name: TargetName, command: string[] | undefined, protocol: Protocol): Target {
  return {
    name,
    protocol,
    managed: command === undefined,
    transport: 'stdio',
    async connect(options = {}) {
      const [file, ...args] = command ?? [process.execPath, ZODEXD, ...(options.args ?? [])];
      const transport = new StdioClientTransport({
        command: file!,
        args,
        env: { ...(process.env as Record<string, string>), ...options.env },
        stderr: 'pipe',
        ...(command === undefined && options.cwd ? { cwd: options.cwd } : {}),
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = newClient();
      await client.connect(protocol === 'modern' ? new ModernClientTransport(transport) : transport);
      const pid = transport.pid ?? -1;
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      const server: ManagedServer | undefined =
        command === undefined && child
          ? {
              process: child,
              pid,
              stderr: () => stderr,
              url: undefined,
              exited: new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code)))),
            }
          : undefined;
      return { client, server, close: () => client.close() };
    },
  };
}

export function httpHeaders(headers: string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(':');
    if (colon > 0) result[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return result;
}

export async function connectHttp(
  url: string,
  headers: Record<string, string> = {},
  protocol: Protocol = 'legacy',
): Promise<{ client: Client; transport: Transport }> {
  const transport =
    protocol === 'modern'
      ? new ModernClientTransport(new ModernHttpPipe(url, headers))
      : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = newClient();
  await client.connect(transport);
  return { client, transport };
}

function httpTarget(name: TargetName, remote: { url: string; headers: Record<string, string> } | undefined, protocol: Protocol): Target {
  return {
    name,
    protocol,
    managed: remote === undefined,
    transport: 'http',
    async connect(options = {}) {
      if (remote) {
        const { client } = await connectHttp(remote.url, remote.headers, protocol);
        return { client, server: undefined, endpoint: remote, close: () => client.close() };
      }
      const server = await startHttpServer(options.args, options.env, options.cwd);
      const token = options.env?.ZODEX_AUTH_TOKEN;
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const { client, transport } = await connectHttp(server.url, headers, protocol);
      return {
        client,
        server,
        endpoint: { url: server.url, headers },
        async close() {
          if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => {});
          await client.close();
          await stopServer(server);
        },
      };
    },
  };
}

// The target of this run: a project name (managed), or what the runner was pointed at.
export function resolveTarget(name: TargetName, protocol: Protocol = 'legacy'): Target {
  const headers = httpHeaders((process.env.ZODEX_CONFORMANCE_HEADERS ?? '').split('\n').filter(Boolean));
  switch (name) {
    case 'stdio':
      return stdioTarget(name, undefined, protocol);
    case 'http':
      return httpTarget(name, undefined, protocol);
    case 'remote-stdio':
      return stdioTarget(name, splitCommand(requiredEnv('ZODEX_CONFORMANCE_STDIO')), protocol);
    case 'remote-http':
    case 'container':
      return httpTarget(name, { url: requiredEnv('ZODEX_CONFORMANCE_URL'), headers }, protocol);
    case 'sandbox': // zodexd in a container, started by the global setup
      return httpTarget(
        name,
        {
          url: requiredEnv('ZODEX_SANDBOX_URL'),
          headers: httpHeaders((process.env.ZODEX_SANDBOX_HEADERS ?? '').split('\n').filter(Boolean)),
        },
        protocol,
      );
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the runner sets it from --stdio or --url`);
  return value;
}
