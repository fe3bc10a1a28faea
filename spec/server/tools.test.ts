// The server's tool table: built from tools/index.ts, validated before any handler runs, a
// rejected call recorded like a failed one (a call of an unknown tool too), set_agent_alias run
// without a record, rejected or not.
import { describe, expect, it } from 'vitest';
import { Conversation } from '../../src/server/conversation.js';
import { NO_OBSERVER } from '../../src/observe.js';
import { ownAgent, unknownToolCalled } from '../../src/server/server.js';
import { callOutcome, defineTool, type Extra, type ToolSetup } from '../../src/server/tools.js';
import type { Observer } from '../../src/observe.js';
import { TOOLS, type Tool, type ToolContext } from '../../src/tools/index.js';
import { fakeRuntime } from './support.js';
import { patchBoundary, UNBOUNDED_PATCHES } from '../../src/features/bounds/patch.js';
import { servedTools } from '../../src/app/tools.js';

const limits = {
  maxExecTimeoutMs: 7_200_000,
  maxYieldMs: 30_000,
  defaultWorkdir: undefined,
  inlineLimitBytes: 16_384,
  previewBytes: 4_096,
  headBytes: 1_024,
  tailFileBytes: 1 << 20,
  spillCapBytes: 16 << 20,
};
const extra = { signal: new AbortController().signal } as Extra;
// The tools the last setupFor's runtime serves: the core's, then its extra ones (Local mode: set_agent_alias on its store).
let served: readonly Tool[] = TOOLS;
const byName = (name: string) => served.find((tool) => tool.name === name)!;
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

function setupFor(mode: 'local' | 'sprite') {
  const fake = fakeRuntime(mode);
  served = [...TOOLS, ...(fake.runtime.extraTools ?? [])];
  const conversation = new Conversation(fake.runtime, 'c1');
  const context = (): ToolContext => ({
    principal: 'static',
    engine: undefined as never, // no test here reaches the engine
    owner: conversation.id,
    agentId: () => conversation.agentId,
    sessionEnv: () => ({}),
    defaultWorkdir: undefined,
    patches: patchBoundary(UNBOUNDED_PATCHES),
    maxExecTimeoutMs: limits.maxExecTimeoutMs,
    maxYieldMs: limits.maxYieldMs,
    call: { signal: extra.signal, progress: undefined },
  });
  const setup: ToolSetup = { limits, annotations: () => ({ readOnlyHint: true }), agentFor: () => ownAgent(conversation), context, observer: NO_OBSERVER };
  return { fake, setup };
}

describe('the tool table', () => {
  it('lists the four tools once each, in order, with set_agent_alias for Local mode only', async () => {
    const [local, sprite] = [await servedTools('local'), await servedTools('sprite')];
    expect(local.names).toEqual(['exec_command', 'write_stdin', 'apply_patch', 'set_agent_alias']);
    expect(local.names.filter((name) => !sprite.names.includes(name))).toEqual(['set_agent_alias']);
    expect([...TOOLS, ...local.extra(fakeRuntime('local').store)].map((tool) => tool.name)).toEqual(local.names);
  });

  it('defines each tool with a strict input schema and the title and description of its file', () => {
    const { setup } = setupFor('local');
    for (const tool of served) {
      const { definition } = defineTool(tool, setup);
      expect(definition.name).toBe(tool.name);
      expect(definition.description).toBe(tool.description(limits));
      expect((definition.inputSchema as { additionalProperties?: boolean }).additionalProperties).toBe(false);
    }
  });

  it('records a call rejected by validation, with the rejection as its result, and runs nothing', async () => {
    const { fake, setup } = setupFor('sprite');
    const result = await defineTool(byName('exec_command'), setup).call({ cmd: 'touch X', workdir: '/tmp', timeout: 5 }, extra);
    expect(textOf(result)).toMatch(/^UNKNOWN_ARGUMENT: `timeout`: exec_command has no such argument/);
    expect(fake.of('startInvocation')).toEqual([[{ agentId: 'AG1X', tool: 'exec_command', workdir: '/tmp', summary: 'touch X' }]]);
    expect(fake.of('finishInvocation')[0]![1]).toMatchObject({ isError: true });
  });

  it('runs set_agent_alias through the store without recording an invocation', async () => {
    const { fake, setup } = setupFor('local');
    const result = await defineTool(byName('set_agent_alias'), setup).call({ alias: 'Rindle implementation' }, extra);
    expect(result.structuredContent).toEqual({ agent_id: 'AG1X', alias: 'Rindle implementation' });
    expect(textOf(result)).toMatch(/^Agent AG1X is now labelled "Rindle implementation" in Liveboard\./);
    expect(fake.of('setAlias')).toEqual([['AG1X', 'Rindle implementation', 'agent']]);
    expect(fake.of('startInvocation')).toEqual([]);
  });

  it('records nothing for a set_agent_alias call rejected by validation (alias changes never reach the timeline)', async () => {
    const { fake, setup } = setupFor('local');
    const result = await defineTool(byName('set_agent_alias'), setup).call({ alias: 'x'.repeat(81) }, extra);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^ALIAS_TOO_LONG: /);
    expect(fake.of('startInvocation')).toEqual([]);
    expect(fake.of('setAlias')).toEqual([]);
  });

  it('records a call of a tool that does not exist, by the name asked for, as a failed call', async () => {
    const { fake, setup } = setupFor('sprite');
    const tools = served.map((tool) => defineTool(tool, setup));
    const conversation = new Conversation(fake.runtime, 'c2');
    const result = await unknownToolCalled(tools, ownAgent(conversation), 'run_shell', { workdir: '/tmp', cmd: 'ls' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('UNKNOWN_TOOL: no tool is named "run_shell"; the tools are exec_command, write_stdin, apply_patch');
    expect(fake.of('startInvocation')).toEqual([[{ agentId: 'AG1X', tool: 'run_shell', workdir: '/tmp', summary: 'unknown tool' }]]);
    expect(fake.of('finishInvocation')[0]![1]).toMatchObject({ isError: true });
  });
});

describe('what the observer hears of each call (the metrics seam)', () => {
  function recording(): { observer: Observer; heard: unknown[][] } {
    const heard: unknown[][] = [];
    const observer: Observer = {
      ...NO_OBSERVER,
      callStarted: (tool) => heard.push(['started', tool]),
      callEnded: (tool, outcome, seconds) => heard.push(['ended', tool, outcome, typeof seconds === 'number' && seconds >= 0]),
    };
    return { observer, heard };
  }

  it('hears a call start and end, with ok or the error code of its result and a duration', async () => {
    const { setup } = setupFor('local');
    const { observer, heard } = recording();
    const observed = { ...setup, observer };
    await defineTool(byName('set_agent_alias'), observed).call({ alias: 'Metrics' }, extra);
    await defineTool(byName('exec_command'), observed).call({ cmd: 'true', workdir: '/tmp', timeout: 5 }, extra);
    expect(heard).toEqual([
      ['started', 'set_agent_alias'],
      ['ended', 'set_agent_alias', 'ok', true],
      ['started', 'exec_command'],
      ['ended', 'exec_command', 'UNKNOWN_ARGUMENT', true],
    ]);
  });

  it('names only registered codes: cancelled, ok, a known code, else INTERNAL', () => {
    const aborted = new AbortController();
    aborted.abort();
    const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }], isError: true });
    expect(callOutcome({ content: [] }, aborted.signal)).toBe('cancelled');
    expect(callOutcome({ content: [] }, undefined)).toBe('ok');
    expect(callOutcome(text('WORKDIR_NOT_FOUND: no such directory'), undefined)).toBe('WORKDIR_NOT_FOUND');
    expect(callOutcome(text('MADE_UP_BY_A_CLIENT: x'), undefined)).toBe('INTERNAL');
    expect(callOutcome(text('no code at all'), undefined)).toBe('INTERNAL');
  });
});
