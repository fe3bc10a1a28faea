import { describe, expect, it } from 'vitest';
import { HANDLE_PATTERN, newSessionHandle, newSessionId } from '../../src/exec/handle.js';

describe('session handles', () => {
  it('are URL-safe, carry at least 128 random bits, and do not repeat', () => {
    const handles = Array.from({ length: 10_000 }, newSessionHandle);
    for (const handle of handles.slice(0, 100)) {
      expect(handle).toMatch(HANDLE_PATTERN);
      expect(encodeURIComponent(handle)).toBe(handle);
      expect(Buffer.from(handle.slice(3), 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
    expect(new Set(handles).size).toBe(handles.length);
  });

  it('look nothing like a pid or a counter', () => {
    const handles = Array.from({ length: 100 }, newSessionHandle);
    expect(handles.filter((handle) => /^zs_\d+$/.test(handle))).toEqual([]);
    const sorted = [...handles].sort();
    expect(sorted).not.toEqual(handles);
  });

  it('session ids for records differ from handles', () => {
    expect(newSessionId()).toMatch(/^s[0-9a-f]{12}$/);
  });
});
