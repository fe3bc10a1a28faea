// A test's handle on one conversation with an implementation: typed calls for the three
// tools, and helpers that act on the server's machine through exec_command itself.

import fs from 'node:fs';
import { expect } from '@playwright/test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Connection, ManagedServer, Target } from './target.js';

export interface ExecResult {
  summary: string;
  output: string;
  output_head?: string;
  output_omitted?: string;
  output_offset: number;
  status: 'running' | 'exited';
  cwd: string;
  session_handle?: string;
  waiting_for_input?: boolean;
  yield_time_ms?: number;
  exit_code?: number;
  termination_reason?: 'exit' | 'timeout' | 'killed';
  signal?: string;
  output_file?: string;
  output_chars?: number;
  output_lines?: number;
  output_file_truncated?: boolean;
  output_file_error?: string;
  output_tail_file?: string;
  output_tail_file_offset?: number;
  sandbox_refused?: string;
  output_files_removed?: string[];
  zodex_context?: unknown;
}

// The folder on the server's machine the suite works in: the runner's --workspace (every scratch
// folder is made under it, and helper commands run there), else none (the temp folder, and /).
export const WORKSPACE = process.env.ZODEX_CONFORMANCE_WORKSPACE || undefined;

export class Zodex {
  private readonly scratchDirs: string[] = [];

  constructor(
    readonly target: Target,
    private readonly connection: Connection,
  ) {}

  // A workdir every call may use: the workspace, or / when the run has none.
  get root(): string {
    return WORKSPACE ?? '/';
  }

  get client(): Client {
    return this.connection.client;
  }

  // The zodexd process, on managed targets.
  get server(): ManagedServer {
    const server = this.connection.server;
    if (!server) throw new Error(`target ${this.target.name} gives no access to the server process`);
    return server;
  }

  // The zodexd process when this suite started it, else undefined.
  get managedServer(): ManagedServer | undefined {
    return this.connection.server;
  }

  // The HTTP endpoint of this conversation's server (HTTP targets only).
  get endpoint(): { url: string; headers: Record<string, string> } {
    const endpoint = this.connection.endpoint;
    if (!endpoint) throw new Error(`target ${this.target.name} is not an HTTP target`);
    return endpoint;
  }

  async call(name: string, args: Record<string, unknown>, options: { timeout?: number; onprogress?: (p: unknown) => void } = {}): Promise<CallToolResult> {
    const requestOptions = {
      timeout: options.timeout ?? 60_000,
      ...(options.onprogress ? { onprogress: options.onprogress, resetTimeoutOnProgress: true } : {}),
    };
    return (await this.client.callTool({ name, arguments: args }, undefined, requestOptions)) as CallToolResult;
  }

  // A call that must succeed with a structured exec result; checks the text block mirrors it.
  async execResult(
    name: 'exec_command' | 'write_stdin',
    args: Record<string, unknown>,
    options?: { timeout?: number; onprogress?: (p: unknown) => void },
  ): Promise<ExecResult> {
    const result = await this.call(name, args, options);
    expect(result.isError, `${name} failed: ${textOf(result)}`).toBeFalsy();
    const structured = result.structuredContent as unknown as ExecResult;
    expect(structured, `${name} returned no structuredContent`).toBeTruthy();
    const first = result.content[0];
    expect(first?.type).toBe('text');
    // The text block is the same JSON, with any zodex_context appended after it as text.
    const text = (first as { text: string }).text;
    const { zodex_context: context, ...rest } = structured;
    expect(JSON.parse(text.split('\n\n')[0]!)).toEqual(rest);
    if (context !== undefined) expect(text.endsWith(`\n\n${String(context)}`)).toBe(true);
    return structured;
  }

  exec(
    args: { cmd: string; workdir?: string; yield_time_ms?: number; timeout_ms?: number },
    options?: { timeout?: number; onprogress?: (p: unknown) => void },
  ): Promise<ExecResult> {
    return this.execResult('exec_command', args, options);
  }

  write(
    args: { session_handle: string; chars?: string; yield_time_ms?: number; kill_process?: boolean; since_offset?: number },
    options?: { timeout?: number; onprogress?: (p: unknown) => void },
  ): Promise<ExecResult> {
    return this.execResult('write_stdin', args, options);
  }

  // Polls a running session until it exits; returns the final result and all output seen.
  async finish(first: ExecResult, yieldMs = 5_000, limitMs = 60_000): Promise<{ result: ExecResult; output: string }> {
    let result = first;
    let output = first.output;
    const deadline = Date.now() + limitMs;
    while (result.status === 'running') {
      if (Date.now() > deadline) throw new Error(`still running after ${limitMs} ms: ${result.summary}`);
      result = await this.write({ session_handle: result.session_handle!, yield_time_ms: yieldMs });
      output += result.output;
    }
    return { result, output };
  }

  patch(workdir: string, patch: string): Promise<CallToolResult> {
    return this.call('apply_patch', { workdir, patch });
  }

  // Runs a helper command on the server's machine and returns its output; it must exit 0.
  async sh(cmd: string, workdir = this.root): Promise<string> {
    const first = await this.exec({ cmd, workdir, yield_time_ms: 30_000 });
    const { result, output } = await this.finish(first);
    expect(result.exit_code, `helper command failed: ${cmd}\n${output}`).toBe(0);
    return output;
  }

  // A fresh empty directory on the server's machine (under the workspace when the run has one),
  // removed when the test ends. Its path as the server's `pwd -P` sees it, so results compare.
  async scratch(): Promise<string> {
    const parent = WORKSPACE === undefined ? '"${TMPDIR:-/tmp}"' : `'${WORKSPACE}'`;
    const made = await this.call('exec_command', {
      cmd: `cd "$(mktemp -d ${parent}/zodex-conformance.XXXXXX)" && pwd -P`,
      workdir: this.root,
      yield_time_ms: 30_000,
    });
    const dir = made.isError ? '' : ((made.structuredContent as { output?: string } | undefined)?.output ?? '').trim();
    expect(dir, `could not make a scratch folder under ${WORKSPACE ?? '$TMPDIR'} on the server: ${textOf(made).slice(0, 500)}`).toMatch(/^\/[^\n]*$/);
    this.scratchDirs.push(dir);
    return dir;
  }

  async writeFile(file: string, content: string): Promise<void> {
    const b64 = Buffer.from(content).toString('base64');
    await this.sh(`printf '%s' '${b64}' | base64 -d > '${file}'`);
  }

  // A file's bytes, read through the tools (base64, so any byte survives the terminal).
  async readFile(file: string): Promise<Buffer | undefined> {
    const out = await this.sh(`if [ -f '${file}' ]; then base64 -w0 < '${file}'; echo; echo FOUND; else echo MISSING; fi`);
    if (out.trim().endsWith('MISSING')) return undefined;
    return Buffer.from(out.split('\n')[0]!.trim(), 'base64');
  }

  async close(): Promise<void> {
    for (const dir of this.scratchDirs.splice(0)) {
      await this.exec({ cmd: `rm -rf '${dir}'`, workdir: this.root, yield_time_ms: 10_000 }).catch(() => {});
      // A test that stopped its server leaves the folder to us: on this machine, its random name
      // (mktemp's) makes it ours.
      if (/\/zodex-conformance\.[A-Za-z0-9]{6}$/.test(dir)) fs.rmSync(dir, { recursive: true, force: true });
    }
    await this.connection.close();
  }
}

export function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

// The structuredContent of a raw callTool result, typed by the caller.
export function structuredOf<T>(result: unknown): T {
  return (result as { structuredContent: T }).structuredContent;
}
