// A program that prompts: how long from the call that starts it to the first reply (the prompt,
// with the session still running)? zodex (stdio) returns when the kernel shows the command
// waiting to read its terminal; Desktop Commander (start_process) when its text matching sees a
// prompt. N rounds, interleaved; the goal for zodex is a first reply within 100 ms every time.
//   node bench/prompt.mjs [ROUNDS=20]     -> bench/results/prompt.json

import { requireBuild, writeResult } from './lib.mjs';
import { interleave, now, row } from './compare/harness.mjs';
import { bindTargets, disableDesktopCommanderTelemetry, ensurePeers, makeScratch } from './compare/servers.mjs';

const GOAL_MS = 100;
const YIELD_MS = 10_000; // the window either server may wait before it gives up on a prompt
// printf, not `read -p`: bash prints read's prompt only on a terminal, and Desktop Commander
// runs commands on pipes.
const PROGRAM = "printf 'Continue? [y/N] '; read answer; echo \"answer=$answer\"";

const text = (result) => result.content.map((block) => block.text ?? '').join('\n');

const steps = {
  zodex: async (client, workdir) => {
    const started = now();
    const result = await client.callTool({ name: 'exec_command', arguments: { cmd: PROGRAM, workdir, yield_time_ms: YIELD_MS } }, undefined, { timeout: 60_000 });
    const ms = now() - started;
    const reply = result.structuredContent;
    if (reply?.status !== 'running' || !reply.output.includes('Continue? [y/N]')) throw new Error(`unexpected reply: ${text(result).slice(0, 200)}`);
    await client.callTool({ name: 'write_stdin', arguments: { session_handle: reply.session_handle, kill_process: true } });
    return { ms, waitingForInput: reply.waiting_for_input === true };
  },
  'desktop-commander': async (client, workdir) => {
    const started = now();
    const result = await client.callTool({ name: 'start_process', arguments: { command: `cd '${workdir}' && ${PROGRAM}`, timeout_ms: YIELD_MS } }, undefined, { timeout: 60_000 });
    const ms = now() - started;
    const body = text(result);
    const pid = /Process started with PID (-?\d+)/.exec(body)?.[1];
    if (!pid || !body.includes('Continue? [y/N]')) throw new Error(`unexpected reply: ${body.slice(0, 200)}`);
    await client.callTool({ name: 'force_terminate', arguments: { pid: Number(pid) } });
    return { ms, waitingForInput: /waiting for input|prompt/i.test(body) };
  },
};

async function main() {
  requireBuild();
  const rounds = Number(process.argv[2] ?? 20);
  const peers = ensurePeers();
  const scratch = makeScratch();
  const targets = bindTargets(peers).filter((target) => target.id === 'zodex-stdio' || target.id === 'desktop-commander');
  const participants = [];
  for (const target of targets) {
    const participant = { id: target.id, label: target.label, version: target.version, samples: [], flagged: 0 };
    if (target.unavailable) participant.reason = target.unavailable;
    else {
      participant.server = await target.start(scratch);
      if (target.id === 'desktop-commander') disableDesktopCommanderTelemetry(scratch);
      participant.step = steps[target.adapter];
    }
    participants.push(participant);
  }
  // one unmeasured round each, so that no first-call start-up cost (shell capture, module load) is counted
  for (const p of participants) if (p.step) await p.step(p.server.client, scratch.work).catch(() => {});
  await interleave(participants, rounds, async (p) => {
    const { ms, waitingForInput } = await p.step(p.server.client, scratch.work);
    p.samples.push(ms);
    if (waitingForInput) p.flagged += 1;
  });
  for (const p of participants) await p.server?.close();
  const rows = participants.map((p) =>
    row(p, p.samples, { version: p.version, withinGoal: p.samples.filter((ms) => ms <= GOAL_MS).length, saidWaitingForInput: p.flagged }),
  );
  for (const r of rows) console.log(`${r.label}: ${r.status === 'ok' ? `median ${r.stats.median} ms, min ${r.stats.min}, max ${r.stats.max}; ${r.withinGoal}/${r.stats.n} within ${GOAL_MS} ms` : r.reason}`);
  const file = writeResult('prompt', { program: PROGRAM, rounds, goalMs: GOAL_MS, yieldMs: YIELD_MS, rows });
  console.log(`wrote ${file}`);
}

await main();
