// How each server does each workload, through its own tools (names and argument shapes taken from
// each server's tools/list). One adapter per kind of server; a capability it lacks is listed in
// `notApplicable` with the reason, and the workload reports that instead of a figure. `how`
// records, per workload, the tools and arguments used: it is written into the results JSON.

const YIELD_FINISH_MS = 10_000; // "wait until it exits": every short command ends long before
const YIELD_BIG_MS = 300_000;

const textOf = (result) =>
  (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
const bytes = (text) => Buffer.byteLength(text, 'utf8');
const shellQuote = (value) => `'${String(value).replaceAll("'", "'\\''")}'`;

async function callTool(client, name, args, timeoutMs = 600_000) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
  if (result.isError) throw new Error(`${name} returned an error: ${textOf(result).slice(0, 200)}`);
  return result;
}

// Output that must be ours: only the characters the workload's command prints.
function checkOnly(text, allowed, what) {
  const stray = text.replace(allowed, '');
  if (stray.length > 0) throw new Error(`${what} holds unexpected text: ${JSON.stringify(stray.slice(0, 60))}`);
}

// zodex: exec_command / write_stdin / apply_patch, the same over stdio and HTTP.
export function zodexAdapter(server, workdir) {
  const exec = async (client, args) => (await callTool(client, 'exec_command', { workdir, ...args })).structuredContent;
  const stdin = async (client, args) => (await callTool(client, 'write_stdin', args)).structuredContent;
  const exited = (r, what) => {
    if (r.status !== 'exited' || r.exit_code !== 0) throw new Error(`${what}: ${r.summary}${r.output ? `: ${JSON.stringify(r.output.slice(-160))}` : ''}`);
    return r;
  };
  return {
    how: {
      w1: {
        tool: 'exec_command',
        arguments: { cmd: 'true', workdir: '<scratch>', yield_time_ms: YIELD_FINISH_MS },
        note: 'returns as soon as the command exits',
      },
      w2: {
        tool: 'exec_command',
        arguments: { cmd: '<50 MB command>', workdir: '<scratch>', yield_time_ms: YIELD_BIG_MS },
        reachable: 'preview in the result (last 4 KiB) + the spill file output_file (first 16 MiB kept), its size read through exec_command `stat -c %s FILE`',
      },
      w3: {
        tools: ['exec_command', 'write_stdin'],
        start: { tool: 'exec_command', arguments: { cmd: '<program>', yield_time_ms: 300 } },
        input: { tool: 'write_stdin', arguments: { session_handle: '<handle>', chars: 'ping-N\\n', yield_time_ms: 5000 } },
        then: { tool: 'write_stdin', arguments: { session_handle: '<handle>', yield_time_ms: 1000 }, note: 'only if the answer were not in (calls counted)' },
        note: 'write_stdin with chars returns once the program has answered (beyond the echo) and paused 10 ms, so one call is the normal case',
        stop: { tool: 'write_stdin', arguments: { session_handle: '<handle>', kill_process: true } },
      },
      w4: {
        tool: 'exec_command',
        arguments: { cmd: '<command>', workdir: '<scratch>', yield_time_ms: YIELD_FINISH_MS },
        note: server.conversation
          ? '16 calls at once, each in its own MCP session (16 conversations on one server)'
          : '16 calls at once on the one stdio connection',
      },
      w5: {
        tools: ['exec_command', 'write_stdin'],
        start: { tool: 'exec_command', arguments: { cmd: '<command>', yield_time_ms: 1000 } },
        poll: { tool: 'write_stdin', arguments: { session_handle: '<handle>', yield_time_ms: 1000 }, note: 'until status is "exited"' },
      },
      w6: { tool: 'apply_patch', arguments: { workdir: '<dir>', patch: '<Codex patch, 1,000 chunks>' } },
    },
    notApplicable: {},

    trivial: async (cmd) => exited(await exec(server.client, { cmd, yield_time_ms: YIELD_FINISH_MS }), cmd),

    bigOutput: async (cmd, expectedBytes) => {
      const r = exited(await exec(server.client, { cmd, yield_time_ms: YIELD_BIG_MS }), 'big output');
      if (r.output_chars !== expectedBytes) throw new Error(`output_chars ${r.output_chars}, expected ${expectedBytes}`);
      return { resultBytes: bytes(r.output), handle: r };
    },
    reachable: async ({ handle: r }) => {
      let retainedBytes = 0;
      if (r.output_file) {
        const check = exited(
          await exec(server.client, {
            cmd: `stat -c %s ${shellQuote(r.output_file)}; tr -d 'x\\n' < ${shellQuote(r.output_file)} | wc -c`,
            yield_time_ms: YIELD_FINISH_MS,
          }),
          'stat',
        );
        const [size, stray] = check.output.trim().split(/\s+/).map(Number);
        if (stray !== 0) throw new Error(`spill file holds ${stray} unexpected bytes`);
        retainedBytes = size;
      }
      const resultBytes = bytes(r.output);
      checkOnly(r.output, /[x\n]/g, 'preview');
      // A truncated spill file holds the head of the stream, the preview its tail: both count.
      const reachableBytes = r.output_file_truncated ? Math.min(r.output_chars, retainedBytes + resultBytes) : Math.max(retainedBytes, resultBytes);
      return { reachableBytes, resultBytes, retainedBytes, detail: { output_file_truncated: r.output_file_truncated ?? false, output_chars: r.output_chars } };
    },

    startInteractive: async (program) => {
      let r = await exec(server.client, { cmd: program, yield_time_ms: 300 });
      let output = r.output;
      for (let i = 0; r.status === 'running' && !output.includes('> ') && i < 50; i++) {
        r = await stdin(server.client, { session_handle: r.session_handle, yield_time_ms: 100 });
        output += r.output;
      }
      if (r.status !== 'running' || !output.includes('> ')) throw new Error(`program did not prompt: ${r.summary}`);
      return { handle: r.session_handle };
    },
    ping: async (session, text) => {
      const answer = `answer:${text}\n`;
      let r = await stdin(server.client, { session_handle: session.handle, chars: `${text}\n`, yield_time_ms: 5000 });
      let output = r.output;
      let calls = 1;
      while (!output.includes(answer)) {
        if (r.status !== 'running') throw new Error(`program ended: ${r.summary}`);
        if (calls > 50) throw new Error('no answer after 50 polls');
        r = await stdin(server.client, { session_handle: session.handle, yield_time_ms: 1000 });
        output += r.output;
        calls += 1;
      }
      return { calls };
    },
    stopInteractive: async (session) => {
      await stdin(server.client, { session_handle: session.handle, kill_process: true });
    },

    prepareConcurrent: async (n) => {
      if (!server.conversation) return { clients: Array.from({ length: n }, () => server.client), close: async () => {} };
      const conversations = await Promise.all(Array.from({ length: n }, () => server.conversation()));
      return { clients: conversations.map((c) => c.client), close: () => Promise.all(conversations.map((c) => c.close())) };
    },
    runConcurrent: async (ctx, cmd, marker) => {
      const results = await Promise.all(ctx.clients.map((client) => exec(client, { cmd, yield_time_ms: YIELD_FINISH_MS })));
      for (const r of results) if (!exited(r, cmd).output.includes(marker)) throw new Error(`a session's output lacks ${marker}`);
      return { missing: [] };
    },

    poll: async (cmd, yieldMs) => {
      let r = await exec(server.client, { cmd, yield_time_ms: yieldMs });
      let output = r.output;
      let calls = 1;
      while (r.status === 'running') {
        r = await stdin(server.client, { session_handle: r.session_handle, yield_time_ms: yieldMs });
        output += r.output;
        calls += 1;
      }
      exited(r, cmd);
      return { calls, output };
    },

    applyChange: async (dir, fixture) => {
      const r = await callTool(server.client, 'apply_patch', { workdir: dir, patch: fixture.codexPatch });
      return { resultText: textOf(r).slice(0, 200) };
    },
  };
}

// Desktop Commander: start_process / interact_with_process / read_process_output / force_terminate
// (pipes, not a PTY; `bash -l -c` for each command), and write_file / edit_block for files.
export function desktopCommanderAdapter(server, workdir) {
  const call = (name, args, client = server.client) => callTool(client, name, args);
  const pidOf = (result) => {
    const match = /Process started with PID (-?\d+)/.exec(textOf(result));
    if (!match) throw new Error(`start_process gave no PID: ${textOf(result).slice(0, 200)}`);
    return Number(match[1]);
  };
  const completed = /Process completed with exit code (-?\d+)/;
  const READ_PAGE_LINES = 100_000;

  // The text of a read_process_output page between its status line and its process-state line.
  const pageBody = (text) => {
    const body = text.slice(text.indexOf('\n\n') + 2).replace(/\n✅ Process completed with exit code -?\d+( \(runtime: [\d.]+s\))?$/u, '');
    return body === '(No output in requested range)' ? '' : body;
  };

  return {
    how: {
      w1: {
        tool: 'start_process',
        arguments: { command: 'true', timeout_ms: YIELD_FINISH_MS },
        note: 'returns when the process exits (or at timeout_ms, or on prompt detection)',
      },
      w2: {
        tool: 'start_process',
        arguments: { command: '<50 MB command>', timeout_ms: YIELD_BIG_MS },
        reachable: `read_process_output { pid, offset, length: ${READ_PAGE_LINES} } paged through the retained buffer (its cap: 50 Mi characters per session); every byte counted`,
      },
      w3: {
        tools: ['start_process', 'interact_with_process'],
        start: { tool: 'start_process', arguments: { command: '<program>', timeout_ms: YIELD_FINISH_MS }, note: 'returns on its prompt detection' },
        input: { tool: 'interact_with_process', arguments: { pid: '<pid>', input: 'ping-N\\n', timeout_ms: 5000, wait_for_prompt: true } },
        note: 'returns once its 50 ms server-side poll sees the prompt "> " after the answer',
        stop: { tool: 'force_terminate', arguments: { pid: '<pid>' } },
      },
      w4: {
        tool: 'start_process',
        arguments: { command: '<command>', timeout_ms: YIELD_FINISH_MS },
        check: {
          tool: 'read_process_output',
          arguments: { pid: '<pid>', offset: 0, length: 100 },
          note: 'untimed, only for a result that lacks the output: was it late or lost?',
        },
        note: '16 calls at once on the one stdio connection',
      },
      w5: {
        tools: ['start_process', 'read_process_output'],
        start: { tool: 'start_process', arguments: { command: '<command>', timeout_ms: 1000 } },
        poll: { tool: 'read_process_output', arguments: { pid: '<pid>', timeout_ms: 1000 }, note: 'until the text says "Process completed with exit code"' },
      },
      w6: {
        tools: ['write_file', 'start_process'],
        steps: [
          { tool: 'write_file', arguments: { path: '<dir>.diff', content: '<unified diff, 1,000 hunks>', mode: 'rewrite' } },
          { tool: 'start_process', arguments: { command: "cd '<dir>' && git apply '<dir>.diff'", timeout_ms: 60_000 } },
        ],
        note: 'no patch tool; its own editor edit_block takes one call per hunk (sampled separately: editBlockPerHunkMs)',
      },
    },
    notApplicable: {},

    trivial: async (cmd) => pidOf(await call('start_process', { command: cmd, timeout_ms: YIELD_FINISH_MS })),

    bigOutput: async (cmd) => {
      const result = await call('start_process', { command: cmd, timeout_ms: YIELD_BIG_MS });
      const text = textOf(result);
      const initial = text.slice(text.indexOf('Initial output:\n') + 'Initial output:\n'.length).replace(/\n(✅|🔄|⏳)[^\n]*$/u, '');
      return { resultBytes: bytes(initial), handle: { pid: pidOf(result) } };
    },
    reachable: async ({ handle, resultBytes }) => {
      // Stream = retained lines joined by "\n": count each page's characters and line breaks.
      let chars = 0;
      let totalLines = 0;
      let evicted = false;
      for (let offset = 0; ; ) {
        const text = textOf(await call('read_process_output', { pid: handle.pid, offset, length: READ_PAGE_LINES }));
        const status = /\[Reading (\d+) (?:new )?lines(?: from line (\d+))?(?: \(total: (\d+) lines(?:, (\d+) remaining)?\))?\]/.exec(text);
        if (!status) throw new Error(`unexpected read_process_output text: ${text.slice(0, 120)}`);
        if (text.includes('buffer cap')) evicted = true;
        const [readCount, from, total] = [Number(status[1]), Number(status[2] ?? 0), Number(status[3])];
        const body = pageBody(text);
        checkOnly(body, /[x\n]/g, 'read_process_output page');
        if (readCount > 0) chars += body.length - (readCount - 1);
        totalLines = total;
        offset = from + readCount;
        if (readCount === 0 || offset >= total) break;
      }
      const retainedBytes = chars + Math.max(0, totalLines - 1);
      // The result's text is the tail of the same stream, which the buffer also holds.
      return { reachableBytes: Math.max(retainedBytes, resultBytes), resultBytes, retainedBytes, detail: { retainedLines: totalLines, evicted } };
    },

    startInteractive: async (program) => {
      const result = await call('start_process', { command: program, timeout_ms: YIELD_FINISH_MS });
      if (!textOf(result).includes('>')) throw new Error(`program did not prompt: ${textOf(result).slice(0, 200)}`);
      return { pid: pidOf(result) };
    },
    ping: async (session, text) => {
      const result = await call('interact_with_process', { pid: session.pid, input: `${text}\n`, timeout_ms: 5000, wait_for_prompt: true });
      if (!textOf(result).includes(`answer:${text}\n`)) throw new Error(`no answer in the result: ${textOf(result).slice(0, 200)}`);
      return { calls: 1 };
    },
    stopInteractive: async (session) => {
      await call('force_terminate', { pid: session.pid });
    },

    prepareConcurrent: async (n) => ({ clients: Array.from({ length: n }, () => server.client), close: async () => {} }),
    // start_process returns on the process's exit, which can come before its output is read: such
    // a result lacks the output. Untimed, after the clock: read_process_output tells whether the
    // output came late (the caller can still read it) or was lost (the buffer kept at exit is empty).
    runConcurrent: async (ctx, cmd, marker) => {
      const results = await Promise.all(ctx.clients.map((client) => call('start_process', { command: cmd, timeout_ms: YIELD_FINISH_MS }, client)));
      return { missing: results.filter((r) => !textOf(r).includes(marker)).map(pidOf) };
    },
    checkConcurrent: async (outcome, marker) => {
      let late = 0;
      for (const pid of outcome.missing) if (textOf(await call('read_process_output', { pid, offset: 0, length: 100 })).includes(marker)) late += 1;
      return { late, lost: outcome.missing.length - late };
    },

    poll: async (cmd, yieldMs) => {
      const first = await call('start_process', { command: cmd, timeout_ms: yieldMs });
      const pid = pidOf(first);
      let output = textOf(first);
      let calls = 1;
      let last = output;
      while (!completed.test(last)) {
        if (calls > 1000) throw new Error('no completion after 1000 polls');
        last = textOf(await call('read_process_output', { pid, timeout_ms: yieldMs }));
        output += last;
        calls += 1;
      }
      if (completed.exec(last)[1] !== '0') throw new Error(`exit code ${completed.exec(last)[1]}`);
      return { calls, output };
    },

    applyChange: async (dir, fixture) => {
      const diff = `${dir}.diff`;
      await call('write_file', { path: diff, content: fixture.unifiedDiff, mode: 'rewrite' });
      const result = await call('start_process', { command: `cd ${shellQuote(dir)} && git apply ${shellQuote(diff)}`, timeout_ms: 60_000 });
      return { resultText: textOf(result).slice(0, 200) };
    },
    // One edit_block call per hunk: the old lines with their context, replaced in place.
    editBlock: async (dir, hunk) => {
      const old = [...hunk.before, hunk.line, ...hunk.after].join('\n');
      const replacement = [...hunk.before, hunk.replacement, ...hunk.after].join('\n');
      await call('edit_block', { file_path: `${dir}/big.txt`, old_string: old, new_string: replacement, expected_replacements: 1 });
    },
  };
}

// mcp-server-commands: one tool, run_command { command, workdir?, stdin? }, which runs the
// command with Node's child_process.exec and returns when it exits. No sessions.
export function mcpServerCommandsAdapter(server, workdir) {
  const run = (args, client = server.client) => client.callTool({ name: 'run_command', arguments: { workdir, ...args } }, undefined, { timeout: 600_000 });
  const ok = (result, what) => {
    if (result.isError) throw new Error(`${what}: ${textOf(result).slice(0, 200)}`);
    return result;
  };
  return {
    how: {
      w1: { tool: 'run_command', arguments: { command: 'true', workdir: '<scratch>' } },
      w2: {
        tool: 'run_command',
        arguments: { command: '<50 MB command>', workdir: '<scratch>' },
        reachable: 'the STDOUT text in the result; the server keeps nothing afterwards',
      },
      w4: {
        tool: 'run_command',
        arguments: { command: '<command>', workdir: '<scratch>' },
        note: 'no sessions: 16 blocking calls at once on the one stdio connection',
      },
      w6: {
        tool: 'run_command',
        arguments: { command: 'git apply', workdir: '<dir>', stdin: '<unified diff, 1,000 hunks>' },
        note: 'no patch tool: the diff goes to git apply through the stdin argument',
      },
    },
    notApplicable: {
      w3: 'run_command takes stdin only up front and returns when the command exits: there is no running program to type into',
      w5: 'run_command blocks until the command exits: there is no handle to poll (a command outlasting the client request timeout fails)',
    },

    trivial: async (cmd) => ok(await run({ command: cmd }), cmd),

    bigOutput: async (cmd) => {
      const result = await run({ command: cmd }); // exec's 1 MiB maxBuffer ends it: an error result with the stdout so far
      // Content is [error message?, stdout?, stderr?] (the items' own names do not survive the
      // SDK's schema): the stdout item is the one made of the command's "x" lines.
      const texts = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
      const stdout = texts.filter((t) => /^[x\n]+$/.test(t)).join('');
      const message = texts.find((t) => !/^[x\n]+$/.test(t))?.slice(0, 120);
      return { resultBytes: bytes(stdout), handle: { stdout, isError: Boolean(result.isError), message } };
    },
    reachable: async ({ handle, resultBytes }) => {
      checkOnly(handle.stdout, /[x\n]/g, 'STDOUT');
      return { reachableBytes: resultBytes, resultBytes, retainedBytes: 0, detail: { isError: handle.isError, message: handle.message } };
    },

    prepareConcurrent: async (n) => ({ clients: Array.from({ length: n }, () => server.client), close: async () => {} }),
    runConcurrent: async (ctx, cmd, marker) => {
      const results = await Promise.all(ctx.clients.map((client) => run({ command: cmd }, client)));
      for (const r of results) if (!textOf(ok(r, cmd)).includes(marker)) throw new Error(`a command's output lacks ${marker}`);
      return { missing: [] };
    },

    applyChange: async (dir, fixture) => {
      const result = ok(await run({ command: 'git apply', workdir: dir, stdin: fixture.unifiedDiff }), 'git apply');
      return { resultText: textOf(result).slice(0, 200) };
    },
  };
}

export const ADAPTERS = {
  zodex: zodexAdapter,
  'desktop-commander': desktopCommanderAdapter,
  'mcp-server-commands': mcpServerCommandsAdapter,
};

// What a workload needs of an adapter, to tell "not applicable" apart from a missing figure.
export const NEEDS = { w1: 'trivial', w2: 'bigOutput', w3: 'ping', w4: 'runConcurrent', w5: 'poll', w6: 'applyChange' };
