// Who may talk to the publisher: a client running as the daemon's own user could read the token
// (the token file, /proc/<daemon>/environ, a debugger), so it is refused unless the operator
// said so; the token is only withheld from an agent that runs as another user.
// Flow: connection -> peerCredentials(fd) (SO_PEERCRED / getpeereid, src/native.ts) -> same uid as
// the daemon and not --allow-same-user-token-readable -> PEER_REFUSED; unknown peer -> PEER_REFUSED.

import type net from 'node:net';
import { peerCredentials } from '../../native.js';
import { PublisherError } from './errors.js';

export const SAME_USER_FLAG = '--allow-same-user-token-readable';

export interface PeerPolicy {
  // The operator accepts that a same-user client can read the token.
  allowSameUser: boolean;
}

function socketFd(socket: net.Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

// Throws PEER_REFUSED when the policy does not admit this client; returns the peer's uid when checked.
export function admitPeer(socket: net.Socket, policy: PeerPolicy): number | undefined {
  if (policy.allowSameUser) return undefined;
  const fd = socketFd(socket);
  let uid: number;
  try {
    if (fd === undefined) throw new Error('the connection has no descriptor');
    uid = peerCredentials(fd).uid;
  } catch (error) {
    throw new PublisherError(
      'PEER_REFUSED',
      `the publisher cannot tell which user connected (${(error as Error).message}), so it refuses; the operator can start it with ${SAME_USER_FLAG} to accept any client of the socket`,
    );
  }
  const own = process.getuid?.();
  if (uid === own) {
    throw new PublisherError(
      'PEER_REFUSED',
      `this client runs as the publisher's own user (uid ${uid}), which could read the publisher's token, so the publisher refuses it. ` +
        `Run the publisher as a dedicated user (\`zodex publisher --user NAME\`, docs/publishing.md), or let the operator accept this with ${SAME_USER_FLAG}`,
    );
  }
  return uid;
}
