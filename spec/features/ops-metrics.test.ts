// The ops feature's metrics (src/features/ops/metrics.ts): what the core's Observer seam reports
// moves the counters, including the sandbox-refusal counter that only the opt-in sandbox (issue 26)
// will call; the gauges read the probes at each scrape, the spill walk once for both gauges.
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/features/ops/metrics.js';

const value = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"=,]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1]);

describe('ops metrics', () => {
  it('count what the observer hears, and read the probes at each scrape', async () => {
    const metrics = createMetrics({ version: '9.9.9', mode: 'sprite', transport: 'http', tools: ['exec_command'] });
    let walks = 0;
    let running = 0;
    metrics.setProbes({
      runningCommands: () => running,
      httpSessions: () => 2,
      agents: () => 3,
      spill: async () => (walks++, { bytes: 1234, files: 2 }),
      draining: () => false,
    });
    const { observer } = metrics;
    observer.callStarted('exec_command');
    let text = await metrics.render();
    expect(value(text, 'zodex_tool_calls_in_flight')).toBe(1);
    observer.callEnded('exec_command', 'ok', 0.004);
    observer.callStarted('exec_command');
    observer.callEnded('exec_command', 'WORKDIR_NOT_FOUND', 0.001);
    observer.commandStarted();
    observer.commandEnded('timeout');
    observer.sandboxRefused('network');
    running = 5;
    walks = 0;
    text = await metrics.render();
    expect(value(text, 'zodex_tool_calls_total{tool="exec_command",outcome="ok"}')).toBe(1);
    expect(value(text, 'zodex_tool_calls_total{tool="exec_command",outcome="WORKDIR_NOT_FOUND"}')).toBe(1);
    expect(value(text, 'zodex_tool_call_duration_seconds_count{tool="exec_command"}')).toBe(2);
    expect(value(text, 'zodex_tool_call_duration_seconds_bucket{le="0.005",tool="exec_command"}')).toBe(2);
    expect(value(text, 'zodex_tool_calls_in_flight')).toBe(0);
    expect(value(text, 'zodex_commands_started_total')).toBe(1);
    expect(value(text, 'zodex_commands_ended_total{reason="timeout"}')).toBe(1);
    expect(value(text, 'zodex_sandbox_refusals_total{kind="network"}')).toBe(1);
    expect(value(text, 'zodex_sandbox_refusals_total{kind="write"}')).toBe(0);
    expect(value(text, 'zodex_commands_running')).toBe(5);
    expect(value(text, 'zodex_http_sessions')).toBe(2);
    expect(value(text, 'zodex_agents')).toBe(3);
    expect(value(text, 'zodex_spill_bytes')).toBe(1234);
    expect(value(text, 'zodex_spill_files')).toBe(2);
    expect(walks).toBe(1);
    expect(value(text, 'zodex_info{version="9.9.9",mode="sprite",transport="http"}')).toBe(1);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  });
});
