// An HTTP call whose client went away before its answer is cancelled, as if the client had sent
// notifications/cancelled for each request of the POST: the SDK aborts the handler's
// extra.signal, and exec_command kills a command whose handle can no longer be delivered.

import type http from 'node:http';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../../errors.js';
import type { HttpSession } from './sessions.js';
import type { Log } from '../../log.js';

// The ids of the requests (not notifications or responses) a POST body carries.
export function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message: unknown) => {
    if (message === null || typeof message !== 'object' || !('method' in message) || !('id' in message)) return [];
    const id = (message as { id: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

export function cancelOnDrop(res: http.ServerResponse, conversation: HttpSession, body: unknown, log: Log): void {
  const ids = requestIds(body);
  if (ids.length === 0) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      log(
        `session ${conversation.id}: the connection of request ${typeof requestId === 'number' ? requestId : quote(requestId, 40)} closed before its answer; cancelling it`,
        { session: conversation.id, request: requestId },
      );
      conversation.transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the HTTP connection closed' } });
    }
  });
}
