// Listening on a parsed address, for every TCP listener (the MCP endpoint, the Liveboard): one
// place that binds, turns a bind failure into one line naming the address, and reports the
// address really bound (port 0 picks one), IPv6 in brackets as a URL writes it.

import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ListenAddress } from './address.js';

export interface BoundAddress {
  host: string; // as a URL writes it: 127.0.0.1, [::1]
  port: number;
}

// `subject` starts the failure line: "the Liveboard cannot listen on …"; none: "cannot listen on …".
export async function listenOn(server: Server, address: ListenAddress, subject?: string): Promise<BoundAddress> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    const what = `${subject ? `${subject} ` : ''}cannot listen on ${address.host}:${address.port}`;
    throw new Error(`${what}: ${error.code ?? error.message}`);
  });
  const bound = server.address() as AddressInfo;
  return { host: bound.family === 'IPv6' ? `[${bound.address}]` : bound.address, port: bound.port };
}
