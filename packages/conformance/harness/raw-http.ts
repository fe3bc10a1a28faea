// Raw HTTP requests with full control of Host, Origin and Authorization headers, which fetch
// would not let a test set, and a minimal MCP initialize helper on top.

import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

// `socketPath`: send it over that Unix socket instead (the URL still gives path and Host);
// `localAddress`: send it from that address (127.0.0.2 …: another source on loopback).
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; socketPath?: string; localAddress?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...(options.socketPath ? { socketPath: options.socketPath } : { host: target.hostname.replace(/^\[(.*)\]$/, '$1'), port: target.port }),
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        path: target.pathname + target.search,
        method: options.method ?? 'GET',
        headers: options.headers,
        setHost: options.headers?.host === undefined && options.headers?.Host === undefined,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export const INITIALIZE = (protocolVersion = '2025-11-25') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// POSTs an initialize request; the result is the parsed JSON-RPC response (SSE or JSON body).
export async function initialize(url: string, headers: Record<string, string> = {}, protocolVersion?: string): Promise<RawResponse & { message: unknown }> {
  const response = await rawRequest(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE(protocolVersion) });
  const data = response.body.split('\n').find((line) => line.startsWith('data: {'));
  const json = data ? data.slice(6) : response.body;
  let message: unknown;
  try {
    message = JSON.parse(json);
  } catch {
    message = undefined;
  }
  return { ...response, message };
}
