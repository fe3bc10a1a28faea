// A fake runtime for server/ tests: a store that records its calls (the recorder, and in Local
// mode set_agent_alias's store), an engine that records closeOwner, a log that keeps its lines,
// the publisher's command variables, and in Local mode zodex_context from a Codex home whose
// AGENTS.md is the global context, as app/ wires them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ConversationContext, defaultContextOptions } from '../../src/features/context/index.js';
import { setAgentAliasTool } from '../../src/features/liveboard/set_agent_alias.js';
import { agentCommandEnv } from '../../src/features/publisher/paths.js';
import type { ServerRuntime } from '../../src/server/options.js';

const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-conversation-'));
fs.writeFileSync(path.join(codexHome, 'AGENTS.md'), 'Always run the tests.\n');
afterAll(() => fs.rmSync(codexHome, { recursive: true, force: true }));

export function fakeRuntime(mode: 'local' | 'sprite') {
  const calls: { method: string; args: unknown[] }[] = [];
  const logged: string[] = [];
  const closedOwners: string[] = [];
  let agents = 0;
  const store: Parameters<typeof setAgentAliasTool>[0] & Record<string, unknown> = {
    setAlias: (...args: unknown[]) => void calls.push({ method: 'setAlias', args }),
    agent: () => ({ alias: 'Rindle implementation' }) as ReturnType<Parameters<typeof setAgentAliasTool>[0]['agent']>,
    registerAgent: (...args: unknown[]) => (calls.push({ method: 'registerAgent', args }), `AG${(agents += 1)}X`),
    startInvocation: (...args: unknown[]) => (calls.push({ method: 'startInvocation', args }), 7),
    finishInvocation: (...args: unknown[]) => void calls.push({ method: 'finishInvocation', args }),
    endAgent: (...args: unknown[]) => void calls.push({ method: 'endAgent', args }),
  };
  const local = mode === 'local' ? { newContext: () => new ConversationContext(defaultContextOptions(codexHome)), extraTools: [setAgentAliasTool(store)] } : {};
  const runtime = {
    options: { mode },
    recorder: store,
    ...local,
    commandEnv: agentCommandEnv,
    serverId: 'zserver',
    log: (line: string) => logged.push(line),
    engine: { closeOwner: (owner: string) => closedOwners.push(owner) },
  } as unknown as ServerRuntime;
  const of = (method: string) => calls.filter((call) => call.method === method).map((call) => call.args);
  return { runtime, store, calls, of, logged, closedOwners };
}
