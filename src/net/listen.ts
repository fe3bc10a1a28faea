// Listening on a parsed address, for every listener (the MCP endpoint, the Liveboard): one place
// that binds, turns a bind failure into one line naming the address, and reports the address
// really bound (port 0 picks one), IPv6 in brackets as a URL writes it. A unix:/PATH address
// binds a private Unix socket instead (unix-socket.ts: 0600, its folder checked, leftovers).

import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from './address.js';
import { listenPrivately, SocketPathError } from './unix-socket.js';

export interface BoundAddress {
  host: string; // as a URL writes it: 127.0.0.1, [::1] ('localhost' on a Unix socket)
  port: number;
  socketPath?: string;
  removeSocket?: () => void; // removes the socket file if it is still the one bound here
}

// `subject` starts the failure line: "the Liveboard cannot listen on …"; none: "cannot listen on …".
export async function listenOn(server: Server, address: ListenAddress, subject?: string): Promise<BoundAddress> {
  const { socketPath } = address;
  let removeSocket: (() => void) | undefined;
  await (socketPath
    ? listenPrivately(server, socketPath).then((remove) => void (removeSocket = remove))
    : new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(address.port, address.host, () => {
          server.off('error', reject);
          resolve();
        });
      })
  ).catch((error: NodeJS.ErrnoException) => {
    if (error instanceof SocketPathError) throw error; // already names the path and the fix
    const what = `${subject ? `${subject} ` : ''}cannot listen on ${socketPath ? `unix:${socketPath}` : `${address.host}:${address.port}`}`;
    throw new Error(`${what}: ${error.code ?? error.message}`);
  });
  if (socketPath) return { host: 'localhost', port: 0, socketPath, ...(removeSocket ? { removeSocket } : {}) };
  const bound = server.address() as AddressInfo;
  return { host: bound.family === 'IPv6' ? `[${bound.address}]` : bound.address, port: bound.port };
}
