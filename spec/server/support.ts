// A fake runtime for server/ tests: a store that records its calls, an engine that records
// closeOwner, a log that keeps its lines, and a Codex home whose AGENTS.md is the global context.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { defaultContextOptions } from '../../src/features/context/index.js';
import type { ServerRuntime } from '../../src/server/options.js';

const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conversation-'));
fs.writeFileSync(path.join(codexHome, 'AGENTS.md'), 'Always run the tests.\n');
afterAll(() => fs.rmSync(codexHome, { recursive: true, force: true }));

export function fakeRuntime(mode: 'local' | 'sprite') {
  const calls: { method: string; args: unknown[] }[] = [];
  const logged: string[] = [];
  const closedOwners: string[] = [];
  let agents = 0;
  const store = {
    setAlias: (...args: unknown[]) => void calls.push({ method: 'setAlias', args }),
    agent: () => ({ alias: 'Rindle implementation' }),
    registerAgent: (...args: unknown[]) => (calls.push({ method: 'registerAgent', args }), `AG${(agents += 1)}X`),
    startInvocation: (...args: unknown[]) => (calls.push({ method: 'startInvocation', args }), 7),
    finishInvocation: (...args: unknown[]) => void calls.push({ method: 'finishInvocation', args }),
    endAgent: (...args: unknown[]) => void calls.push({ method: 'endAgent', args }),
  };
  const runtime = {
    options: { mode, context: defaultContextOptions(codexHome) },
    store,
    serverId: 'zserver',
    log: (line: string) => logged.push(line),
    engine: { closeOwner: (owner: string) => closedOwners.push(owner) },
  } as unknown as ServerRuntime;
  const of = (method: string) => calls.filter((call) => call.method === method).map((call) => call.args);
  return { runtime, calls, of, logged, closedOwners };
}

