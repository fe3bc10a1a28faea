// The one place log lines are formatted (src/log.ts): text as before, JSON lines for a fleet;
// never a secret, never a raw control character, a handle never whole.
import fc from 'fast-check';
import { SecretRegistry } from '../src/secrets.js';
import { describe, expect, it } from 'vitest';
import { escapeControls } from '../src/errors.js';
import { HANDLE_PREFIX_CHARS, createLogger, formatLine, levelOf } from '../src/log.js';

const at = new Date('2026-12-04T10:00:00.000Z');

describe('log lines', () => {
  it('text: "zodexd: message", as zodexd always wrote it', () => {
    expect(formatLine('text', 'serving over http on http://127.0.0.1:7391/mcp', undefined, at)).toBe('zodexd: serving over http on http://127.0.0.1:7391/mcp');
  });

  it('json: time, level, message, and the agent, a handle prefix and the request id where given', () => {
    const line = JSON.parse(formatLine('json', 'a command was killed', { agent: 'AB12', handle: 'h'.repeat(43), request: 7, session: 's-1' }, at));
    expect(line).toEqual({
      time: '2026-12-04T10:00:00.000Z',
      level: 'info',
      message: 'a command was killed',
      agent: 'AB12',
      handle: 'h'.repeat(HANDLE_PREFIX_CHARS),
      request: 7,
      session: 's-1',
    });
    expect(JSON.parse(formatLine('json', 'x', undefined, at))).toEqual({ time: '2026-12-04T10:00:00.000Z', level: 'info', message: 'x' });
  });

  it('levels: given, else warn for "warning:" and info otherwise', () => {
    expect(levelOf('warning: listening on non-loopback 10.0.0.5', undefined)).toBe('warn');
    expect(levelOf('WARNING: --insecure-no-auth', undefined)).toBe('warn');
    expect(levelOf('internal error', { level: 'error' })).toBe('error');
    expect(levelOf('serving', undefined)).toBe('info');
  });

  it('never writes a secret, in either format, in the message or a field', () => {
    const secret = 'tok-0123456789abcdef';
    const secrets = new SecretRegistry();
    secrets.add('ZODEX_AUTH_TOKEN', secret);
    for (const format of ['text', 'json'] as const) {
      const line = formatLine(format, `header was Bearer ${secret}`, { request: `id-${secret}`, agent: secret }, at, (text) => secrets.redactText(text));
      expect(line).not.toContain(secret);
      expect(line).toContain('[REDACTED:ZODEX_AUTH_TOKEN]');
    }
  });

  it('json lines are one line of valid JSON without raw control characters, whatever a client sent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (message, request) => {
        const line = formatLine('json', message, { request, agent: message }, at);
        expect(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(line)).toBe(false);
        const parsed = JSON.parse(line);
        // the one escaping of client text (errors.ts): the same message as in a text line
        expect(parsed.message).toBe(escapeControls(message));
        expect(parsed.request).toBe(escapeControls(request.slice(0, 64)));
        expect(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(parsed.message + parsed.request + parsed.agent)).toBe(false);
      }),
    );
  });

  it('text lines escape every control, format and separator character: a line stays one inert line', () => {
    expect(formatLine('text', 'a\u001b[2Jb\u0007c\u009bd\te\nf\u2028\u202eg', undefined, at)).toBe(
      'zodexd: a\\u001b[2Jb\\u0007c\\u009bd\\u0009e\\u000af\\u2028\\u202eg',
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(formatLine('text', text, undefined, at))).toBe(false);
      }),
    );
  });

  it('writes each line whole, with its newline, to the sink', () => {
    const lines: string[] = [];
    const secrets = new SecretRegistry();
    secrets.add('ZODEX_AUTH_TOKEN', 's3cr3t-value');
    const log = createLogger({ format: 'json', write: (line) => lines.push(line), now: () => at, redact: (text) => secrets.redactText(text) });
    log('one s3cr3t-value', { level: 'warn' });
    expect(lines).toEqual(['{"time":"2026-12-04T10:00:00.000Z","level":"warn","message":"one [REDACTED:ZODEX_AUTH_TOKEN]"}\n']);
  });
});
