// @ts-check
// The Anthropic Messages API as Claude Code calls it (POST /v1/messages, streamed as SSE).
// A request is part of the main conversation when it offers the tool the script names;
// Claude Code's side requests (titles, summaries, token counts) get a short text.

import { sendJson, sendSse, startMock } from './mock-common.mjs';

/** @typedef {import('./mock-common.mjs').Turn} Turn */

/** @param {string} mainTool a tool name that only the main conversation offers @param {any[]} script */
export function startAnthropicMock(mainTool, script) {
  return startMock(
    {
      isMain: (body) => Array.isArray(body?.tools) && body.tools.some((/** @type {any} */ t) => t.name === mainTool),
      other: (req, res) => {
        if (req.url.startsWith('/v1/messages/count_tokens')) {
          sendJson(res, 200, { input_tokens: 100 });
          return true;
        }
        if (!req.url.startsWith('/v1/messages')) {
          sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'mock' } });
          return true;
        }
        return false;
      },
      respond: (res, turn, body, n) => {
        const content =
          'tools' in turn
            ? turn.tools.map((call, i) => ({ type: 'tool_use', id: `toolu_${n}_${i}`, name: call.name, input: call.input }))
            : [{ type: 'text', text: turn.text }];
        const stop = 'tools' in turn ? 'tool_use' : 'end_turn';
        const message = {
          id: `msg_${n}`,
          type: 'message',
          role: 'assistant',
          model: body?.model ?? 'mock',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        };
        if (body?.stream !== true) {
          sendJson(res, 200, { ...message, content, stop_reason: stop });
          return;
        }
        /** @type {[string, unknown][]} */
        const events = [['message_start', { type: 'message_start', message }]];
        content.forEach((block, index) => {
          if ('text' in block) {
            events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
            events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }]);
          } else {
            events.push([
              'content_block_start',
              { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
            ]);
            events.push([
              'content_block_delta',
              { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } },
            ]);
          }
          events.push(['content_block_stop', { type: 'content_block_stop', index }]);
        });
        events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }]);
        events.push(['message_stop', { type: 'message_stop' }]);
        sendSse(res, events);
      },
    },
    script,
  );
}

/** The tool results in the last message of a Messages request, as text, keyed by tool_use_id. @param {any} body */
export function anthropicToolResults(body) {
  const last = body?.messages?.at(-1);
  /** @type {{ id: string, text: string, isError: boolean }[]} */
  const results = [];
  for (const block of Array.isArray(last?.content) ? last.content : []) {
    if (block.type !== 'tool_result') continue;
    const text =
      typeof block.content === 'string'
        ? block.content
        : (block.content ?? [])
            .filter((/** @type {any} */ c) => c.type === 'text')
            .map((/** @type {any} */ c) => c.text)
            .join('');
    results.push({ id: block.tool_use_id, text, isError: block.is_error === true });
  }
  return results;
}
