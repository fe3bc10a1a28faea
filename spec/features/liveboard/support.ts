// Shared pieces of the Liveboard specs: scratch dirs, a real exec engine wired as zodexd wires it
// (tails tracked, sessions recorded), raw HTTP requests with exact headers, and an SSE reader.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { fileURLToPath } from 'node:url';
import { configFor } from '../../../src/app/config/parse.js';
import { engineOptions } from '../../../src/app/options.js';
import { ExecEngine } from '../../../src/exec/engine.js';
import { pickShell, serverEnvironment } from '../../../src/exec/environment.js';
import { SpillStore } from '../../../src/exec/output/spill.js';
import { TailRings } from '../../../src/features/liveboard/tail.js';
import type { Store } from '../../../src/features/store/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

// A private folder for one test file, removed once that file's tests have run.
const scratchDirs: string[] = [];
afterAll(() => {
  for (const dir of scratchDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export function scratch(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `zodex-liveboard-${prefix}-`));
  scratchDirs.push(dir);
  return dir;
}

// An engine as createRuntime builds it: every session's tail tracked and its row in `store`.
export function realEngine(store: Store, serverId: string, spillDir: string): { engine: ExecEngine; tails: TailRings } {
  const tails = new TailRings();
  const engine = new ExecEngine(
    engineOptions(configFor(['--mode', 'sprite']), {
      spawnHelper: process.env.ZODEX_SPAWN_HELPER ?? path.join(repoRoot, 'build/Release/zodex-spawn'),
      shell: Promise.resolve(serverEnvironment(pickShell('sprite'), { remove: [], set: {} })),
      spill: new SpillStore({ parentDir: spillDir, capBytes: 1 << 20, maxAgeMs: 3_600_000 }),
      log: () => {},
    }),
    {
      onSessionStart: (session) => {
        tails.track(session);
        store.sessionStarted({ sessionId: session.id, agentId: session.agentId ?? '', serverId, pid: session.pid, cmd: session.cmd, cwd: session.cwd });
      },
      onSessionEnd: (session) => store.sessionEnded(session.id, { exitCode: session.end?.exitCode, terminationReason: session.end?.reason }),
    },
  );
  return { engine, tails };
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

// A request with exactly these headers (fetch would add or forbid some, e.g. Host and Origin).
export function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface SseEvent {
  event: string;
  data: unknown;
  at: number;
}

// Reads an SSE stream into `events`; waitFor resolves with the first event (seen or to come)
// matching `test`, or rejects after `timeoutMs`.
export class SseReader {
  readonly events: SseEvent[] = [];
  private buffer = '';
  private readonly waiters = new Set<() => void>();
  private req: http.ClientRequest | undefined;

  static open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const reader = new SseReader();
    return new Promise((resolve, reject) => {
      reader.req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`SSE answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => reader.receive(chunk));
        resolve(reader);
      });
      reader.req.on('error', reject);
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length > 0) this.events.push({ event, data: JSON.parse(data.join('\n')), at: Date.now() });
    }
    for (const wake of this.waiters) wake();
  }

  waitFor(test: (event: SseEvent) => boolean, timeoutMs = 2_000): Promise<SseEvent> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.events.find(test);
        if (!found) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no matching SSE event within ${timeoutMs} ms; saw ${this.events.map((e) => e.event).join(', ')}`));
      }, timeoutMs);
      if (!check()) this.waiters.add(check);
    });
  }

  close(): void {
    this.req?.destroy();
  }
}

export async function until<T>(read: () => T | undefined, timeoutMs = 5_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
