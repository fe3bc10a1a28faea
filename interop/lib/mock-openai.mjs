// @ts-check
// The OpenAI Responses API as Codex CLI calls it (POST /v1/responses, streamed as SSE).
// A request is part of the main conversation when it offers tools; anything else Codex asks
// (model lists) gets an empty answer, so nothing leaves loopback.

import { sendJson, sendSse, startMock } from './mock-common.mjs';

/** @param {any[]} script */
export function startOpenAiMock(script) {
  return startMock(
    {
      isMain: (body) => Array.isArray(body?.tools) && body.tools.length > 0,
      other: (req, res) => {
        if (req.url.startsWith('/v1/models')) {
          sendJson(res, 200, { object: 'list', data: [], models: [] });
          return true;
        }
        if (!req.url.startsWith('/v1/responses')) {
          sendJson(res, 404, { error: { message: 'mock', type: 'not_found' } });
          return true;
        }
        return false;
      },
      respond: (res, turn, body, n) => {
        const output =
          'tools' in turn
            ? turn.tools.map((call, i) => ({
                type: 'function_call',
                id: `fc_${n}_${i}`,
                call_id: `call_${n}_${i}`,
                status: 'completed',
                ...splitName(call.name, body),
                arguments: JSON.stringify(call.input),
              }))
            : [
                {
                  type: 'message',
                  id: `msg_${n}`,
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: turn.text, annotations: [] }],
                },
              ];
        const response = { id: `resp_${n}`, object: 'response', status: 'in_progress', model: body?.model ?? 'mock', output: [] };
        /** @type {[string, unknown][]} */
        const events = [['response.created', { type: 'response.created', response }]];
        output.forEach((item, output_index) => events.push(['response.output_item.done', { type: 'response.output_item.done', output_index, item }]));
        const usage = {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        };
        events.push(['response.completed', { type: 'response.completed', response: { ...response, status: 'completed', output, usage } }]);
        sendSse(res, events);
      },
    },
    script,
  );
}

/**
 * Codex offers MCP tools inside a namespace tool (`mcp__NAME`): a call names the namespace and the
 * tool apart. `name` is written `mcp__NAME__tool`, as Claude Code spells it.
 * @param {string} name @param {any} body
 */
function splitName(name, body) {
  const match = /^(mcp__[^_]+(?:_[^_]+)*?)__(.+)$/.exec(name);
  if (!match) return { name };
  const [, namespace, tool] = match;
  const offered = (body?.tools ?? []).some((/** @type {any} */ t) => t.type === 'namespace' && t.name === namespace);
  return offered ? { namespace, name: tool } : { name };
}

/** The function-call outputs in a Responses request, as text, keyed by call_id. @param {any} body */
export function openAiToolResults(body) {
  /** @type {{ id: string, text: string }[]} */
  const results = [];
  for (const item of Array.isArray(body?.input) ? body.input : []) {
    if (item.type !== 'function_call_output') continue;
    const out = item.output;
    const text = typeof out === 'string' ? out : Array.isArray(out) ? out.map((/** @type {any} */ c) => c.text ?? '').join('') : JSON.stringify(out);
    results.push({ id: item.call_id, text });
  }
  return results;
}
