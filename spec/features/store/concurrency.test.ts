// Several zodexd processes share one database: each child process below runs the real store
// (compiled from src/ by support/compile.ts) and writes as fast as it can, at the same time as
// the others. Nothing may be lost and nobody may see SQLITE_BUSY (which would degrade it).

import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databasePath, openStore } from '../../../src/features/store/index.js';
import { compileSources } from './support/compile.js';
import { tempDir } from './support/temp.js';

const WRITER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'writer.mjs');
const WRITERS = 4;
const ITERATIONS = 150;
const AGENTS_PER_WRITER = 5;
// Changes each writer makes: server insert, agent inserts, 5 per iteration (invocation insert
// and update, session insert and update, alias update), and at close: agents ended, server ended.
const CHANGES_PER_WRITER = 1 + AGENTS_PER_WRITER + 5 * ITERATIONS + AGENTS_PER_WRITER + 1;

let compiled: string;
let storeModule: string;

beforeAll(() => {
  compiled = compileSources();
  storeModule = path.join(compiled, 'src', 'features', 'store', 'index.js');
});

afterAll(() => {
  if (compiled) fs.rmSync(compiled, { recursive: true, force: true });
});

type Message = Record<string, any> & { type: string };

function nextMessage(child: ChildProcess, type: string): Promise<Message> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Message) => {
      if (message.type !== type) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`writer exited with ${code} before sending ${type}`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function spawnWriter(stateDir: string, label: string, iterations = ITERATIONS, agents = AGENTS_PER_WRITER): ChildProcess {
  return fork(WRITER, [storeModule, stateDir, label, String(iterations), String(agents)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

describe('several processes writing at once', () => {
  it('lose nothing, never hit SQLITE_BUSY, and keep Agent IDs unique', async () => {
    const stateDir = path.join(tempDir(), 'fresh'); // not created yet: the writers race to create and migrate it
    const children = Array.from({ length: WRITERS }, (_, index) => spawnWriter(stateDir, `w${index}`));
    try {
      const ready = await Promise.all(children.map((child) => nextMessage(child, 'ready')));
      for (const message of ready) expect(message).toMatchObject({ degraded: false, warnings: [] });
      const done = Promise.all(children.map((child) => nextMessage(child, 'done')));
      for (const child of children) child.send({ type: 'go' });
      const results = await done;

      for (const result of results) {
        expect(result.warnings).toEqual([]);
        expect(result.degraded).toBe(false);
        expect(result.invocationIds.every((id: number) => id > 0)).toBe(true);
        // Each process sees the shared cursor only move forward.
        expect([...result.cursors].sort((a: number, b: number) => a - b)).toEqual(result.cursors);
      }
      // They really wrote at the same time: every writer started before any finished.
      const lastStart = Math.max(...results.map((result) => result.startedAt));
      const firstEnd = Math.min(...results.map((result) => result.endedAt));
      expect(lastStart).toBeLessThan(firstEnd);

      const agentIds = results.flatMap((result) => result.agentIds as string[]);
      expect(new Set(agentIds).size).toBe(WRITERS * AGENTS_PER_WRITER);
      // invocation ids are handles of the process that made them (the rows are counted below)
      for (const result of results) expect(new Set(result.invocationIds as number[]).size).toBe(ITERATIONS);

      const db = new Database(databasePath(stateDir), { readonly: true });
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      expect(count('SELECT count(*) AS n FROM invocations')).toBe(WRITERS * ITERATIONS);
      expect(count('SELECT count(*) AS n FROM invocations WHERE ended_at IS NOT NULL AND exit_code = 0')).toBe(WRITERS * ITERATIONS);
      expect(count('SELECT count(*) AS n FROM sessions WHERE ended_at IS NOT NULL')).toBe(WRITERS * ITERATIONS);
      expect(count('SELECT count(*) AS n FROM agents')).toBe(WRITERS * AGENTS_PER_WRITER);
      expect(count('SELECT count(*) AS n FROM servers WHERE ended_at IS NOT NULL')).toBe(WRITERS);
      expect(count('SELECT count(*) AS n FROM change_log')).toBe(WRITERS * CHANGES_PER_WRITER);
      expect(count('SELECT max(seq) AS n FROM change_log')).toBe(WRITERS * CHANGES_PER_WRITER);
      for (const result of results) {
        const label = result.label as string;
        expect(count(`SELECT count(*) AS n FROM invocations WHERE summary LIKE '${label} command %'`)).toBe(ITERATIONS);
        // Each agent's alias is the last one its writer set.
        const lastIndexFor = (agentIndex: number) => ITERATIONS - 1 - ((ITERATIONS - 1 - agentIndex) % AGENTS_PER_WRITER);
        result.agentIds.forEach((agentId: string, agentIndex: number) => {
          const { alias } = db.prepare('SELECT alias FROM agents WHERE id = ?').get(agentId) as { alias: string };
          expect(alias).toBe(`${label} alias ${lastIndexFor(agentIndex)}`);
        });
      }
      db.close();
    } finally {
      for (const child of children) child.kill();
    }
  });

  it('moves the change cursor in one process when another process changes an alias', async () => {
    const stateDir = tempDir();
    const warnings: string[] = [];
    const store = openStore({ stateDir, warn: (message) => warnings.push(message) });
    const agent = store.registerAgent(store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' }));
    const child = spawnWriter(stateDir, 'alias', 0, 1);
    try {
      await nextMessage(child, 'ready');
      const before = store.changeCursor();
      const done = nextMessage(child, 'done');
      child.send({ type: 'alias', agentId: agent, alias: 'named from the Liveboard' });
      const result = await done;
      expect(result).toMatchObject({ degraded: false, warnings: [] });
      const after = store.changeCursor();
      expect(after).toBeGreaterThan(before);
      expect(after).toBe(result.cursor);
      const batch = store.changesSince(before);
      expect(batch.changes.map((change) => [change.kind, change.ref])).toEqual([['agent', agent]]);
      expect(store.agent(agent)).toMatchObject({ alias: 'named from the Liveboard', aliasSetBy: 'operator' });
      // and back: this process's change is seen there (it reports its cursor again)
      store.setAlias(agent, 'renamed here', 'agent');
      const again = nextMessage(child, 'done');
      child.send({ type: 'alias', agentId: agent, alias: 'renamed there' });
      expect((await again).cursor).toBe(store.changeCursor());
      expect(store.agent(agent)?.alias).toBe('renamed there');
    } finally {
      child.kill();
      store.close();
    }
    expect(warnings).toEqual([]);
  });
});
