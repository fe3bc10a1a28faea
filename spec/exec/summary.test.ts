import { describe, expect, it } from 'vitest';
import { exitedSummary, formatSeconds, runningSummary } from '../../src/exec/summary.js';

describe('summary', () => {
  it('uses the four forms of the seed, seconds with one decimal', () => {
    expect(exitedSummary(300, 'exit', 0)).toBe('exited 0 after 0.3s');
    expect(exitedSummary(200, 'exit', 1)).toBe('exited 1 after 0.2s');
    expect(runningSummary(30_100, 'session-token')).toBe('still running after 30.1s; use session_handle session-token to poll');
    expect(exitedSummary(120_000, 'timeout', 137)).toBe('timed out after 120.0s');
    expect(exitedSummary(12_600, 'killed', 137)).toBe('killed after 12.6s');
  });

  it('rounds to one decimal and never goes negative', () => {
    expect(formatSeconds(0)).toBe('0.0s');
    expect(formatSeconds(49)).toBe('0.0s');
    expect(formatSeconds(51)).toBe('0.1s');
    expect(formatSeconds(-5)).toBe('0.0s');
    expect(formatSeconds(3_600_000)).toBe('3600.0s');
  });
});
