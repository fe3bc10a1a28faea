// Whether a server instance is still alive, judged by any process: it has not ended, its
// heartbeat is fresh, and (on this host) its pid still exists. Rows of a dead server that still
// say "running" are shown as lost/interrupted rather than trusted.

import os from 'node:os';
import { processExists } from '../../fsutil.js';

export const HEARTBEAT_INTERVAL_MS = 10_000;
// Three missed heartbeats plus slack for a busy event loop.
export const SERVER_STALE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS + 5_000;

export interface ServerLivenessFacts {
  pid: number;
  hostname: string;
  heartbeatAt: number;
  endedAt: number | null;
}

export function serverIsLive(server: ServerLivenessFacts, now: number, staleAfterMs = SERVER_STALE_AFTER_MS): boolean {
  if (server.endedAt !== null) return false;
  if (now - server.heartbeatAt > staleAfterMs) return false;
  if (server.hostname === os.hostname() && !processExists(server.pid)) return false;
  return true;
}
