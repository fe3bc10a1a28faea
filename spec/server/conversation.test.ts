// A conversation: what it records in the store, its Agent ID, the context on its first result,
// and that it takes its own sessions with it when it closes. The runtime is a fake: a store that
// records calls, an engine that records closeOwner.
import { describe, expect, it } from 'vitest';
import { ZodexError } from '../../src/errors.js';
import { Conversation, type Outcome } from '../../src/server/conversation.js';
import type { ExecResult } from '../../src/tools/index.js';
import { fakeRuntime } from './support.js';

const exited: ExecResult = {
  summary: 'exited 0 after 0.1s',
  output: 'hi\n',
  output_offset: 3,
  status: 'exited',
  cwd: '/tmp',
  exit_code: 0,
  termination_reason: 'exit',
};
const running: ExecResult = {
  summary: 'still running after 1.0s; use session_handle zs_secret to poll',
  output: '',
  output_offset: 0,
  status: 'running',
  cwd: '/tmp',
  session_handle: 'zs_secret',
};
const execOutcome = (result: ExecResult): Outcome => ({ kind: 'exec', result, sessionId: 's1' });
const info = { tool: 'exec_command', workdir: '/tmp', summary: 'echo hi' };
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe('Conversation', () => {
  it('takes its Agent ID at the first call that needs it, once', async () => {
    const fake = fakeRuntime('sprite');
    const conversation = new Conversation(fake.runtime, 'c1');
    expect(fake.of('registerAgent')).toEqual([]);
    await conversation.invoke(info, async () => execOutcome(exited));
    await conversation.invoke(info, async () => execOutcome(exited));
    expect(fake.of('registerAgent')).toEqual([['zserver']]);
    expect(conversation.agentId).toBe('AG1X');
    expect(conversation.sessionEnv().ZODEX_AGENT_ID).toBe('AG1X');
    // One frozen object for the conversation: the engine builds and encodes its environment once.
    expect(conversation.sessionEnv()).toBe(conversation.sessionEnv());
    expect(Object.isFrozen(conversation.sessionEnv())).toBe(true);
  });

  it('records each call: what it was, then how it ended, never a session handle', async () => {
    const fake = fakeRuntime('sprite');
    const conversation = new Conversation(fake.runtime, 'c1');
    const result = await conversation.invoke(info, async () => execOutcome(running));
    expect(fake.of('startInvocation')).toEqual([[{ agentId: 'AG1X', tool: 'exec_command', workdir: '/tmp', summary: 'echo hi' }]]);
    expect(fake.of('finishInvocation')).toEqual([
      [
        7,
        {
          resultSummary: 'still running after 1.0s',
          isError: false,
          exitCode: undefined,
          terminationReason: undefined,
          sessionId: 's1',
          outputFile: undefined,
        },
      ],
    ]);
    expect(result.structuredContent).toEqual(running);
    expect(JSON.parse(textOf(result))).toEqual(running);
    expect(result.isError).toBeUndefined();
  });

  it('maps a thrown ZodexError to its code and anything else (SQLITE_BUSY, ENOENT) to INTERNAL, recording both as errors', async () => {
    const fake = fakeRuntime('sprite');
    const conversation = new Conversation(fake.runtime, 'c1');
    const unknown = await conversation.invoke(info, () => Promise.reject(new ZodexError('UNKNOWN_SESSION', 'no running session')));
    expect(textOf(unknown)).toBe('UNKNOWN_SESSION: no running session');
    const busy = await conversation.invoke(info, () => Promise.reject(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })));
    const enoent = await conversation.invoke(info, () => Promise.reject(Object.assign(new Error('x'), { code: 'ENOENT' })));
    for (const result of [busy, enoent]) {
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^INTERNAL: /);
    }
    expect(fake.logged).toHaveLength(2);
    expect(fake.of('finishInvocation').map(([, row]) => (row as { resultSummary: string; isError: boolean }).isError)).toEqual([true, true, true]);
    expect((fake.of('finishInvocation')[1]![1] as { resultSummary: string }).resultSummary).toMatch(/^INTERNAL: database is locked/);
  });

  it('in Local mode adds the global context to the first result only, after the result', async () => {
    const fake = fakeRuntime('local');
    const conversation = new Conversation(fake.runtime, 'c1');
    const first = await conversation.invoke(info, async () => execOutcome(exited));
    const [json, context] = textOf(first).split('\n\n');
    expect(JSON.parse(json!)).toEqual(exited); // the text block is the result without zodex_context
    expect(context).toContain('Always run the tests.');
    expect((first.structuredContent as { zodex_context?: string }).zodex_context).toContain('Always run the tests.');
    const second = await conversation.invoke(info, async () => execOutcome(exited));
    expect(textOf(second)).toBe(JSON.stringify(exited));
    expect(second.structuredContent).toEqual(exited);
  });

  it('gives the first-result context to a failed first call too, and none in Sprite mode', async () => {
    const local = new Conversation(fakeRuntime('local').runtime, 'c1');
    const failed = await local.invoke(info, () => Promise.reject(new ZodexError('WORKDIR_NOT_FOUND', 'workdir "/x" does not exist')));
    expect(textOf(failed)).toMatch(/^WORKDIR_NOT_FOUND: workdir "\/x" does not exist\n\n[\s\S]*Always run the tests\./);
    const sprite = new Conversation(fakeRuntime('sprite').runtime, 'c2');
    expect(textOf(await sprite.invoke(info, async () => execOutcome(exited)))).toBe(JSON.stringify(exited));
  });

  it('runs a call that is no invocation without recording it', async () => {
    const fake = fakeRuntime('sprite');
    const conversation = new Conversation(fake.runtime, 'c1');
    const result = await conversation.unrecorded(async () => ({ kind: 'text', text: 'labelled', isError: false, structured: { alias: 'x' } }));
    expect(result).toEqual({ content: [{ type: 'text', text: 'labelled' }], structuredContent: { alias: 'x' } });
    const failed = await conversation.unrecorded(() => Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' })));
    expect(textOf(failed)).toMatch(/^INTERNAL: /);
    expect(fake.of('startInvocation')).toEqual([]);
  });

  it('takes its own sessions with it when it closes, and ends its agent', async () => {
    const fake = fakeRuntime('sprite');
    const idle = new Conversation(fake.runtime, 'idle');
    idle.close();
    expect(fake.closedOwners).toEqual(['idle']);
    expect(fake.of('endAgent')).toEqual([]); // it never had an Agent ID
    const busy = new Conversation(fake.runtime, 'busy');
    await busy.invoke(info, async () => execOutcome(exited));
    busy.close();
    expect(fake.closedOwners).toEqual(['idle', 'busy']);
    expect(fake.of('endAgent')).toEqual([[busy.agentId]]);
  });
});
