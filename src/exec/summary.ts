// The one-line `summary` of a result, in exactly the forms the seeds give:
// "exited 0 after 0.3s", "still running after 30.1s; use session_handle H to poll",
// "timed out after 120.0s", "killed after 12.6s". Seconds carry one decimal.

export type TerminationReason = 'exit' | 'timeout' | 'killed';

export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}

export function runningSummary(elapsedMs: number, handle: string): string {
  return `still running after ${formatSeconds(elapsedMs)}; use session_handle ${handle} to poll`;
}

export function exitedSummary(elapsedMs: number, reason: TerminationReason, exitCode: number): string {
  const after = formatSeconds(elapsedMs);
  if (reason === 'timeout') return `timed out after ${after}`;
  if (reason === 'killed') return `killed after ${after}`;
  return `exited ${exitCode} after ${after}`;
}
