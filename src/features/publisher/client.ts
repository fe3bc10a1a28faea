// The client half of the socket protocol: connect, write one request line, read one response
// line. Used by zodex-agent (and by tests). A daemon that cannot be reached is
// PUBLISHER_UNREACHABLE with a message that says GitHub writes are unavailable and who can fix it.

import net from 'node:net';
import { PublisherError } from './errors.js';
import { readLine, responseSchema, type PublisherResponse } from './protocol.js';

// A push of a large history plus the REST calls; the daemon's own git timeout is 5 minutes.
export const CLIENT_TIMEOUT_MS = 15 * 60_000;

type RequestBody = Record<string, unknown> & { op: string };

function unreachable(socketPath: string, error: NodeJS.ErrnoException): PublisherError {
  const why =
    error.code === 'ENOENT' || error.code === 'ECONNREFUSED'
      ? 'no publisher daemon is running there'
      : error.code === 'EACCES'
        ? 'this user may not use that socket'
        : (error.code ?? error.message);
  return new PublisherError(
    'PUBLISHER_UNREACHABLE',
    `cannot reach the publisher at ${socketPath} (${why}); GitHub writes are unavailable (treat the write mode as read-only). The operator starts it with \`zodex publisher\``,
  );
}

export function sendPublisherRequest(socketPath: string, body: RequestBody, id: string, timeoutMs = CLIENT_TIMEOUT_MS): Promise<PublisherResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let connected = false;
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (!connected) reject(unreachable(socketPath, error));
    });
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify({ version: 1, id, ...body })}\n`);
      readLine(socket, timeoutMs, 'response from the publisher')
        .then((line) => {
          socket.destroy();
          let json: unknown;
          try {
            json = JSON.parse(line);
          } catch {
            throw new PublisherError('PUBLISHER_PROTOCOL', 'the publisher answered something that is not JSON; is the socket really a zodex publisher?');
          }
          const parsed = responseSchema.safeParse(json);
          if (!parsed.success)
            throw new PublisherError(
              'PUBLISHER_PROTOCOL',
              'the publisher answered in a shape this zodex-agent does not know; use the same zodex release for both',
            );
          resolve(parsed.data);
        })
        .catch((error: unknown) => {
          socket.destroy();
          reject(error);
        });
    });
  });
}
