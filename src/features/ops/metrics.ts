// zodexd's Prometheus metrics, through prom-client: counters the core's Observer seam moves (tool
// calls, commands, sandbox refusals), gauges read from the running server at each scrape (running
// commands, sessions, agents, spill files, drain), and prom-client's process and Node metrics.
// Flow: createMetrics(info) -> its observer is wired into the runtime -> app/ gives it the probes
// once the runtime exists -> each GET /metrics renders the registry.

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CommandEnd, Observer, SandboxRefusal } from '../../observe.js';

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
// From a `true` round trip (a few ms) to a call that waits out its yield (30 s by default, up to
// --max-yield-ms) or a large apply_patch.
export const CALL_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

// What the gauges read, at scrape time, from the server that runs.
export interface MetricsProbes {
  runningCommands(): number;
  httpSessions(): number; // 2025-11-25 sessions open over HTTP
  agents(): number; // agents known from 2026-07-28 requests
  spill(): Promise<{ bytes: number; files: number }>;
  draining(): boolean;
}

export interface ServerInfo {
  version: string;
  mode: string;
  transport: string;
  tools: readonly string[]; // their series exist from the start, at 0
}

export interface Metrics {
  observer: Observer;
  // Called once the runtime exists; until then the gauges read 0.
  setProbes(probes: MetricsProbes): void;
  render(): Promise<string>;
}

export function createMetrics(info: ServerInfo): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let probes: MetricsProbes | undefined;
  const registers = [registry];

  new Gauge({ name: 'zodex_info', help: 'zodexd version, mode and transport (always 1)', labelNames: ['version', 'mode', 'transport'], registers }).set(
    { version: info.version, mode: info.mode, transport: info.transport },
    1,
  );
  const calls = new Counter({
    name: 'zodex_tool_calls_total',
    help: 'Tool calls by tool and outcome: ok, cancelled, or the error code of an isError result',
    labelNames: ['tool', 'outcome'],
    registers,
  });
  const seconds = new Histogram({
    name: 'zodex_tool_call_duration_seconds',
    help: 'Time from a tool call to its result, by tool (includes the wait up to yield_time_ms)',
    labelNames: ['tool'],
    buckets: CALL_SECONDS_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({ name: 'zodex_tool_calls_in_flight', help: 'Tool calls started and not yet answered', registers });
  const started = new Counter({ name: 'zodex_commands_started_total', help: 'Commands started by exec_command', registers });
  const ended = new Counter({
    name: 'zodex_commands_ended_total',
    help: 'Commands ended, by termination reason (exit, timeout, killed)',
    labelNames: ['reason'],
    registers,
  });
  const refusals = new Counter({
    name: 'zodex_sandbox_refusals_total',
    help: 'Writes and network connections the opt-in sandbox refused (stays 0 until the sandbox reports refusals)',
    labelNames: ['kind'],
    registers,
  });
  new Gauge({
    name: 'zodex_commands_running',
    help: 'Commands running now',
    registers,
    collect() {
      this.set(probes?.runningCommands() ?? 0);
    },
  });
  new Gauge({
    name: 'zodex_http_sessions',
    help: 'MCP 2025-11-25 sessions open over HTTP',
    registers,
    collect() {
      this.set(probes?.httpSessions() ?? 0);
    },
  });
  new Gauge({
    name: 'zodex_agents',
    help: 'Agents known from MCP 2026-07-28 requests',
    registers,
    collect() {
      this.set(probes?.agents() ?? 0);
    },
  });
  // One walk of the spill folder per scrape, shared by both gauges (a registry collects them at once).
  let scan: Promise<{ bytes: number; files: number }> | undefined;
  const spill = () => (scan ??= probes?.spill() ?? Promise.resolve({ bytes: 0, files: 0 }));
  new Gauge({
    name: 'zodex_spill_files',
    help: 'Spill files on disk under the spill folder',
    registers,
    async collect() {
      this.set((await spill()).files);
    },
  });
  new Gauge({
    name: 'zodex_spill_bytes',
    help: "Bytes of spill files on disk under the spill folder (this server's and any left by earlier ones until the age cleanup)",
    registers,
    async collect() {
      this.set((await spill()).bytes);
    },
  });
  new Gauge({
    name: 'zodex_draining',
    help: '1 from the moment a drain (SIGTERM, SIGINT) starts, else 0',
    registers,
    collect() {
      this.set(probes?.draining() ? 1 : 0);
    },
  });

  // Every series a dashboard expects exists from the first scrape.
  for (const tool of info.tools) {
    calls.labels(tool, 'ok').inc(0);
    seconds.zero({ tool });
  }
  for (const reason of ['exit', 'timeout', 'killed'] satisfies CommandEnd[]) ended.labels(reason).inc(0);
  for (const kind of ['write', 'network'] satisfies SandboxRefusal[]) refusals.labels(kind).inc(0);

  const observer: Observer = {
    callStarted: () => inFlight.inc(),
    callEnded: (tool, outcome, duration) => {
      inFlight.dec();
      calls.labels(tool, outcome).inc();
      seconds.labels(tool).observe(duration);
    },
    commandStarted: () => started.inc(),
    commandEnded: (reason) => ended.labels(reason).inc(),
    sandboxRefused: (kind, count = 1) => refusals.labels(kind).inc(count),
  };
  return {
    observer,
    setProbes: (given) => void (probes = given),
    render: async () => {
      try {
        return await registry.metrics();
      } finally {
        scan = undefined; // the next scrape walks again
      }
    },
  };
}
