// The containerized client (issue 6, seed 003): this suite, in a container that holds no
// zodexd, drives a zodexd on the host over HTTP as http://host.docker.internal:PORT/mcp.
// The whole suite runs once inside (beforeAll); each applicable requirement's test here passes
// when it passed in there, so the table's `container` column is the inner run's.

import { REQUIREMENTS, appliesTo, tagsFor, type RequirementId } from '../requirements.js';
import { runClientSuite, runInClientImage, type ClientRun } from '../harness/docker.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { startHttpServer, stopServer, type ManagedServer } from '../harness/target.js';

test.describe.configure({ mode: 'serial' });

let server: (ManagedServer & { url: string }) | undefined;
let inner: ClientRun | undefined;

test.beforeAll(async () => {
  test.setTimeout(12 * 60_000);
  server = await startHttpServer(['--allow-host', 'host.docker.internal']);
  inner = await runClientSuite(server.url.replace('//127.0.0.1:', '//host.docker.internal:'));
});

test.afterAll(async () => {
  if (server) await stopServer(server);
});

function innerResult(id: string): string | undefined {
  return inner?.results?.rows.find((row) => row.id === id)?.results['remote-http'];
}

for (const id of Object.keys(REQUIREMENTS) as RequirementId[]) {
  // the container's own requirements are proved below and in compose.spec.ts
  if (!appliesTo(id, 'container') || tagsFor(id).includes('@container-only')) continue;
  requirement(id, async () => {
    expect(inner?.results, `the suite in the container wrote no results:\n${inner?.output.slice(-4000)}`).toBeDefined();
    expect(innerResult(id), `${id} inside the container:\n${inner?.output.slice(-4000)}`).toBe('pass');
  });
}

requirement('container.allow-host', async () => {
  // with --allow-host host.docker.internal: everything above passed through that name
  expect(inner?.exitCode, inner?.output.slice(-4000)).toBe(0);
  expect(server?.stderr()).not.toMatch(/invalid Host/);
  // without it, the same request from the container is refused, naming the flag
  const bare = await startHttpServer([]);
  try {
    const url = bare.url.replace('//127.0.0.1:', '//host.docker.internal:');
    const script = `fetch(${JSON.stringify(url)}, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) }).then(async (r) => console.log(r.status, await r.text()))`;
    const answer = await runInClientImage(['node', '-e', script]);
    expect(answer).toMatch(/^403 Forbidden: invalid Host header "host\.docker\.internal:\d+"/);
    expect(answer).toContain('--allow-host host.docker.internal');
  } finally {
    await stopServer(bare);
  }
});

requirement('container.url-only', async () => {
  // the client image carries the suite and the MCP SDK, not zodexd: the URL is all it has
  const listing = await runInClientImage(['sh', '-c', 'command -v zodexd || echo no-zodexd; ls /suite; test -e /app && echo has-app || echo no-app']);
  expect(listing).toContain('no-zodexd');
  expect(listing).toContain('no-app');
  expect(listing).not.toMatch(/^dist$/m);
  expect(inner?.exitCode).toBe(0);
});
