// A program that prompts: how long from the call that starts it to the first reply (the prompt,
// with the session still running)? zodex (stdio) returns when the kernel shows the command
// waiting to read its terminal; Desktop Commander (start_process) when its text matching sees a
// prompt. N rounds, interleaved; the goal for zodex is a first reply within 100 ms every time.
//   node bench/prompt.mjs [ROUNDS=20]     -> bench/results/prompt.json

import fs from 'node:fs';
import { requireBuild, writeResult } from './lib.mjs';
import { interleave, now, row } from './compare/harness.mjs';
import { bindTargets, disableDesktopCommanderTelemetry, ensurePeers, makeScratch } from './compare/servers.mjs';

const GOAL_MS = 100;
const YIELD_MS = 10_000; // the window either server may wait before it gives up on a prompt
// printf, not `read -p`: bash prints read's prompt only on a terminal, and Desktop Commander
// runs commands on pipes. The second prompt ends in "> ", one of the REPL prompts Desktop
// Commander's text matching knows; the first (a y/N question) is not among them.
const PROGRAMS = {
  'y/N question': { cmd: 'printf \'Continue? [y/N] \'; read answer; echo "answer=$answer"', prompt: 'Continue? [y/N]' },
  'REPL-style prompt': { cmd: 'printf \'input> \'; read answer; echo "answer=$answer"', prompt: 'input>' },
};

const text = (result) => result.content.map((block) => block.text ?? '').join('\n');

const steps = {
  // The floor: the same prompt printed by a command that then exits, so the reply waits for no
  // detection; what a prompt costs beyond it is the settle, the looks and their confirmation.
  'zodex-floor': async (client, workdir, program) => {
    const started = now();
    const result = await client.callTool({ name: 'exec_command', arguments: { cmd: program.cmd.split(';')[0], workdir, yield_time_ms: YIELD_MS } }, undefined, {
      timeout: 60_000,
    });
    const ms = now() - started;
    if (result.structuredContent?.status !== 'exited') throw new Error(`unexpected reply: ${text(result).slice(0, 200)}`);
    return { ms, waitingForInput: false };
  },
  zodex: async (client, workdir, program) => {
    const started = now();
    const result = await client.callTool({ name: 'exec_command', arguments: { cmd: program.cmd, workdir, yield_time_ms: YIELD_MS } }, undefined, {
      timeout: 60_000,
    });
    const ms = now() - started;
    const reply = result.structuredContent;
    if (reply?.status !== 'running' || !reply.output.includes(program.prompt)) throw new Error(`unexpected reply: ${text(result).slice(0, 200)}`);
    await client.callTool({ name: 'write_stdin', arguments: { session_handle: reply.session_handle, kill_process: true } });
    return { ms, waitingForInput: reply.waiting_for_input === true };
  },
  'desktop-commander': async (client, workdir, program) => {
    const started = now();
    const result = await client.callTool(
      { name: 'start_process', arguments: { command: `cd '${workdir}' && ${program.cmd}`, timeout_ms: YIELD_MS } },
      undefined,
      { timeout: 60_000 },
    );
    const ms = now() - started;
    const body = text(result);
    const pid = /Process started with PID (-?\d+)/.exec(body)?.[1];
    if (!pid || !body.includes(program.prompt)) throw new Error(`unexpected reply: ${body.slice(0, 200)}`);
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
  const servers = [];
  for (const target of targets) {
    if (target.unavailable) servers.push({ target, reason: target.unavailable });
    else {
      const server = await target.start(scratch);
      if (target.id === 'desktop-commander') disableDesktopCommanderTelemetry(scratch);
      servers.push({ target, client: server.client, close: server.close });
      if (target.id === 'zodex-stdio')
        servers.push({
          target: { ...target, id: 'zodex-floor', label: 'zodex (stdio): the prompt, then exit (floor)', adapter: 'zodex-floor' },
          client: server.client,
        });
    }
  }
  // one unmeasured call each, so that no first-call start-up cost (shell capture, module load) is counted
  for (const s of servers) if (s.client) await steps[s.target.adapter](s.client, scratch.work, PROGRAMS['REPL-style prompt']).catch(() => {});
  const panels = {};
  for (const [name, program] of Object.entries(PROGRAMS)) {
    const participants = servers.map((s) => ({
      id: s.target.id,
      label: s.target.label,
      version: s.target.version,
      reason: s.reason,
      client: s.client,
      adapter: s.target.adapter,
      samples: [],
      flagged: 0,
    }));
    await interleave(participants, rounds, async (p) => {
      const { ms, waitingForInput } = await steps[p.adapter](p.client, scratch.work, program);
      p.samples.push(ms);
      if (waitingForInput) p.flagged += 1;
    });
    panels[name] = {
      cmd: program.cmd,
      rows: participants.map((p) =>
        row(p, p.samples, { version: p.version, withinGoal: p.samples.filter((ms) => ms <= GOAL_MS).length, saidWaitingForInput: p.flagged }),
      ),
    };
    for (const r of panels[name].rows)
      console.log(
        `${name} / ${r.label}: ${r.status === 'ok' ? `median ${r.stats.median} ms, min ${r.stats.min}, max ${r.stats.max}; ${r.withinGoal}/${r.stats.n} within ${GOAL_MS} ms` : r.reason}`,
      );
  }
  for (const s of servers) await s.close?.();
  fs.rmSync(scratch.root, { recursive: true, force: true });
  const file = writeResult('prompt', { rounds, goalMs: GOAL_MS, yieldMs: YIELD_MS, panels });
  console.log(`wrote ${file}`);
}

await main();
