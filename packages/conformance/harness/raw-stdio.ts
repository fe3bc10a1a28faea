// A raw stdio conversation with zodexd: write any bytes to its stdin, read its stdout as
// JSON lines, for tests of the framing that an SDK client would never send.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { expect } from '@playwright/test';
import { ZODEXD } from './target.js';

export interface RawReply {
  jsonrpc: string;
  id?: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: { code?: string } };
}

export class RawStdio {
  readonly child: ChildProcessWithoutNullStreams;
  readonly replies: RawReply[] = [];
  private pending = '';
  stderr = '';

  constructor(args: string[] = []) {
    this.child = spawn(process.execPath, [ZODEXD, '--mode', 'sprite', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('utf8');
      const lines = this.pending.split('\n');
      this.pending = lines.pop()!;
      for (const line of lines) this.replies.push(JSON.parse(line) as RawReply);
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.child.stdin.write(data, (error) => (error ? reject(error) : resolve())));
  }

  send(message: object): Promise<void> {
    return this.write(`${JSON.stringify(message)}\n`);
  }

  // The first reply (after `from`) matching `match`, waiting up to `timeout` ms.
  async reply(match: (reply: RawReply) => boolean, timeout = 15_000, from = 0): Promise<RawReply> {
    let found: RawReply | undefined;
    await expect
      .poll(() => (found = this.replies.slice(from).find(match)), { timeout, message: `no matching reply; stderr:\n${this.stderr.slice(-2000)}` })
      .toBeTruthy();
    return found!;
  }

  async request(id: number | string, method: string, params?: object): Promise<RawReply> {
    await this.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return this.reply((reply) => reply.id === id && (reply.result !== undefined || reply.error !== undefined));
  }

  async initialize(): Promise<void> {
    const answer = await this.request('init', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
    expect(answer.result).toBeTruthy();
    await this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  // The structured result of a tool call.
  async call(id: number | string, name: string, args: object): Promise<Record<string, unknown>> {
    const answer = await this.request(id, 'tools/call', { name, arguments: args });
    expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
    return (answer.result!.structuredContent ?? answer.result) as Record<string, unknown>;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.on('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
