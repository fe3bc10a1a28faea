// The ops feature's one entry (--ops-listen): Prometheus metrics that implement the core's
// Observer seam, and the listener serving /healthz, /readyz and /metrics. app/ imports it lazily,
// only when --ops-listen is given, so a zodexd without it never loads prom-client.

export { createMetrics, type Metrics, type MetricsProbes, type ServerInfo } from './metrics.js';
export { startOpsListener, OPS_PATHS, type OpsListener, type OpsState } from './listener.js';
