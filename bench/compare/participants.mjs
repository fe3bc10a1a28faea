// Starting and stopping the servers a workload runs against. A target that is not installed,
// does not start, or lacks the workload's capability becomes a participant with a reason, and
// the workload reports that reason in place of a figure.

import { ADAPTERS, NEEDS } from './adapters.mjs';
import { describeError, NotRun } from './harness.mjs';

// The participant for one target in workload `workload` (w1..w6), started unless it cannot run.
export async function openParticipant(target, workload, scratch) {
  const participant = { id: target.id, label: target.label, kind: 'server', version: target.version };
  if (target.unavailable) return { ...participant, reason: target.unavailable, reasonKind: 'not run' };
  const probe = ADAPTERS[target.adapter]({}, scratch.work);
  if (probe.notApplicable[workload]) return { ...participant, reason: probe.notApplicable[workload], reasonKind: 'not applicable', how: undefined };
  if (!probe[NEEDS[workload]]) return { ...participant, reason: 'no tool for this workload', reasonKind: 'not applicable' };
  try {
    const server = await target.start(scratch);
    const adapter = ADAPTERS[target.adapter](server, scratch.work);
    return { ...participant, server, adapter, how: adapter.how[workload], startupMs: server.startupMs };
  } catch (error) {
    return { ...participant, reason: error instanceof NotRun ? error.message : `failed to start: ${describeError(error)}`, reasonKind: 'not run' };
  }
}

export async function openParticipants(targets, workload, scratch) {
  const participants = [];
  for (const target of targets) participants.push(await openParticipant(target, workload, scratch));
  return participants;
}

export async function closeParticipants(participants) {
  for (const p of participants) {
    if (p.server) await p.server.close().catch(() => {});
    p.server = undefined;
  }
}

// The how/why part of a row, for the results JSON.
export const rowInfo = (p) => ({ version: p.version, how: p.how, ...(p.startupMs !== undefined ? { startupMs: Math.round(p.startupMs) } : {}) });
