// @ts-check
// A model that starts a long command with a long yield, as models do, then polls its handle with
// write_stdin until it exits: the script for the long-command tests and the timeout measurements.

/**
 * @param {string} prefix the client's name for zodex's tools, e.g. `mcp__zodex__`
 * @param {{ cmd: string, workdir: string, yieldMs: number, pollYieldMs?: number, maxPolls?: number }} call
 * @param {(body: any) => { text: string }[]} results the tool results of a request
 * @param {(event: { at: number, text: string }) => void} [onResult] told of every tool result
 */
export function pollScript(prefix, { cmd, workdir, yieldMs, pollYieldMs = 20_000, maxPolls = 10 }, results, onResult = () => {}) {
  const poll = (/** @type {any} */ body) => {
    const last = results(body).at(-1);
    if (!last) return { text: 'no tool result' };
    onResult({ at: Date.now(), text: last.text });
    const start = last.text.indexOf('{');
    let parsed;
    try {
      parsed = JSON.parse(last.text.slice(start));
    } catch {
      return { text: 'the tool call failed' };
    }
    if (parsed.status !== 'running' || !parsed.session_handle) return { text: 'finished' };
    return { tools: [{ name: `${prefix}write_stdin`, input: { session_handle: parsed.session_handle, yield_time_ms: pollYieldMs } }] };
  };
  return [{ tools: [{ name: `${prefix}exec_command`, input: { cmd, workdir, yield_time_ms: yieldMs } }] }, ...Array.from({ length: maxPolls }, () => poll)];
}
