import { describe, expect, it } from 'vitest';
import { INVALID_PARAMS, UNSUPPORTED_VERSION, hasEnvelopeClaim, isRev2026Version, readEnvelope } from '../../../src/wire/rev2026-07-28/envelope.js';
import { agentKeyOf } from '../../../src/server/rev2026-07-28/agents.js';

const meta = (extra: Record<string, unknown> = {}) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.171.0' },
  ...extra,
});
const envelope = (extra: Record<string, unknown> = {}) => {
  const checked = readEnvelope({ _meta: meta(extra) });
  if (!checked.ok) throw new Error(checked.message);
  return checked.envelope;
};

describe('the per-request envelope', () => {
  it('knows the modern versions and the claim', () => {
    expect(isRev2026Version('2026-07-28')).toBe(true);
    expect(isRev2026Version('2025-11-25')).toBe(false);
    expect(isRev2026Version('junk')).toBe(false);
    expect(hasEnvelopeClaim({ _meta: { 'io.modelcontextprotocol/protocolVersion': 1 } })).toBe(true);
    expect(hasEnvelopeClaim({ _meta: {} })).toBe(false);
  });

  it('reads a valid envelope, clientInfo optional', () => {
    expect(envelope().clientInfo).toEqual({ name: 'codex-mcp-client', version: '0.171.0' });
    const bare = readEnvelope({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } });
    expect(bare.ok && bare.envelope.clientInfo).toBeUndefined();
  });

  it('answers missing or malformed keys with -32602 naming them, an unserved version with -32022 and the supported list', () => {
    const missing = readEnvelope({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } });
    expect(missing).toMatchObject({ ok: false, code: INVALID_PARAMS });
    expect(!missing.ok && missing.message).toContain('io.modelcontextprotocol/clientCapabilities');
    expect(readEnvelope({ _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': [] }) })).toMatchObject({ ok: false, code: INVALID_PARAMS });
    expect(readEnvelope({ _meta: meta({ 'io.modelcontextprotocol/clientInfo': { name: 1 } }) })).toMatchObject({ ok: false, code: INVALID_PARAMS });
    const old = readEnvelope({ _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }) });
    expect(old).toMatchObject({ ok: false, code: UNSUPPORTED_VERSION, data: { supported: ['2026-07-28'], requested: '2025-11-25' } });
    const huge = readEnvelope({ _meta: meta({ 'io.modelcontextprotocol/protocolVersion': 'x'.repeat(100_000) }) });
    expect(!huge.ok && huge.message.length).toBeLessThan(300);
  });
});

describe('agentKeyOf: the Agent ID key of a modern request', () => {
  it('prefers the conversation ids clients send: Codex threadId/sessionId, ChatGPT openai/session, VS Code', () => {
    expect(agentKeyOf(envelope({ threadId: 't1', sessionId: 's1' }), 'stdio').source).toBe('_meta.threadId');
    expect(agentKeyOf(envelope({ sessionId: 's1' }), 'stdio').source).toBe('_meta.sessionId');
    expect(agentKeyOf(envelope({ 'openai/session': 'o' }), 'stdio').source).toBe('_meta.openai/session');
    expect(agentKeyOf(envelope({ 'vscode.conversationId': 'v' }), 'stdio').source).toBe('_meta.vscode.conversationId');
    expect(agentKeyOf(envelope({ threadId: 't1' }), 'a').key).toBe(agentKeyOf(envelope({ threadId: 't1' }), 'b').key);
    expect(agentKeyOf(envelope({ threadId: 't1' }), 'a').key).not.toBe(agentKeyOf(envelope({ threadId: 't2' }), 'a').key);
  });

  it("then Claude Code's CLAUDE_CODE_SESSION_ID (stdio), then clientInfo name + peer; per-call ids are ignored", () => {
    expect(agentKeyOf(envelope({ 'claudecode/toolUseId': 'call-1' }), 'stdio', { CLAUDE_CODE_SESSION_ID: 'c' }).source).toBe('CLAUDE_CODE_SESSION_ID');
    const a = agentKeyOf(envelope({ 'claudecode/toolUseId': 'call-1' }), 'http 127.0.0.1');
    const b = agentKeyOf(envelope({ 'claudecode/toolUseId': 'call-2' }), 'http 127.0.0.1');
    expect(a).toEqual(b);
    expect(a.source).toBe('fallback');
    expect(agentKeyOf(envelope(), 'http 10.0.0.2').key).not.toBe(a.key);
  });

  it('two principals (OAuth grants, the static token) never share an agent, whatever _meta names', () => {
    const thread = envelope({ threadId: 't1' });
    expect(agentKeyOf(thread, 'a', {}, 'zg_one').key).not.toBe(agentKeyOf(thread, 'a', {}, 'zg_two').key);
    expect(agentKeyOf(thread, 'a', {}, 'zg_one').key).not.toBe(agentKeyOf(thread, 'a').key);
    expect(agentKeyOf(thread, 'a', {}, 'zg_one').key).toBe(agentKeyOf(thread, 'b', {}, 'zg_one').key);
    expect(agentKeyOf(envelope(), 'http 127.0.0.1', {}, 'zg_one').key).not.toBe(agentKeyOf(envelope(), 'http 127.0.0.1', {}, 'zg_two').key);
  });

  it('keys are bounded digests whatever the client sent', () => {
    expect(agentKeyOf(envelope({ threadId: 'x'.repeat(1_000_000) }), 'stdio').key).toHaveLength(32);
  });
});
