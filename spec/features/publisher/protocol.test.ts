import { describe, expect, it } from 'vitest';
import { parseRequest, requestIdOf } from '../../../src/features/publisher/protocol.js';

const SHA = 'a'.repeat(40);

describe('protocol', () => {
  it('parses the three ops', () => {
    expect(parseRequest('{"version":1,"id":"1","op":"status"}')).toEqual({ version: 1, id: '1', op: 'status' });
    const pr = parseRequest(JSON.stringify({ version: 1, id: '2', op: 'publish-pr', repoPath: '/w', branch: 'b', commit: SHA, title: 't', draft: true }));
    expect(pr).toMatchObject({ op: 'publish-pr', draft: true });
    expect(parseRequest(JSON.stringify({ version: 1, id: '3', op: 'push', repoPath: '/w', branch: 'b', commit: SHA, target: 'main' }))).toMatchObject({
      target: 'main',
    });
  });

  it('refuses unknown ops and fields, bad commits, other versions', () => {
    const code = (line: string) => {
      try {
        parseRequest(line);
        return 'accepted';
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(code('{"version":1,"id":"1","op":"merge"}')).toBe('BAD_REQUEST');
    expect(code('{"version":1,"id":"1","op":"status","token":"x"}')).toBe('BAD_REQUEST');
    expect(code(JSON.stringify({ version: 1, id: '2', op: 'publish-pr', repoPath: '/w', branch: 'b', commit: 'HEAD', title: 't' }))).toBe('BAD_REQUEST');
    expect(code(JSON.stringify({ version: 1, id: '2', op: 'publish-pr', repoPath: '/w', branch: 'b', commit: SHA }))).toBe('BAD_REQUEST');
    expect(code('{"version":2,"id":"1","op":"status"}')).toBe('UNSUPPORTED_VERSION');
    expect(code('{"id":"1","op":"status"}')).toBe('BAD_REQUEST');
    expect(code('[1,2')).toBe('BAD_REQUEST');
  });

  it('echoes the id of a request it could not parse, when there is one', () => {
    expect(requestIdOf('{"id":"abc","op":"x"}')).toBe('abc');
    expect(requestIdOf('{"id":5}')).toBeNull();
    expect(requestIdOf('nope')).toBeNull();
  });
});
