// Linux Docker Engine without host networking (issue 17): zodexd on the bridge gateway with a
// token, dialed from a container on the default bridge as host.docker.internal (host-gateway).

import { bridgeGateway, runInClientImage } from '../harness/docker.js';
import { expect, requirement, test } from '../harness/fixtures.js';
import { startHttpServer, stopServer } from '../harness/target.js';

requirement('container.bridge-gateway', async () => {
  // Linux Docker Engine without host networking: zodexd binds the bridge gateway with a token,
  // and a container on the default bridge dials host.docker.internal (--add-host ...:host-gateway).
  test.setTimeout(6 * 60_000);
  const gateway = bridgeGateway();
  const token = 'bridge-conformance-token-0123456789abcdef';
  const bridged = await startHttpServer(['--listen', `${gateway}:0`], { ZODEX_AUTH_TOKEN: token });
  try {
    expect(bridged.stderr()).toContain(`warning: listening on non-loopback ${gateway}`);
    const url = bridged.url.replace(`//${gateway}:`, '//host.docker.internal:');
    const refused = `fetch(${JSON.stringify(url)}, { method: 'POST', body: '{}' }).then((r) => console.log('without token', r.status))`;
    expect(await runInClientImage(['node', '-e', refused], 'bridge')).toContain('without token 401');
    const suite = await runInClientImage(
      [
        'node',
        'bin/zodex-conformance.mjs',
        '--url',
        url,
        '--header',
        `Authorization: Bearer ${token}`,
        '--profile',
        'all',
        '--grep',
        'exec\\.(exit-code|cwd)|surface\\.instructions\\b',
      ],
      'bridge',
    );
    expect(suite).toMatch(/^remote-http: portable 2 passed\b.*; zodex-surface 1 passed\b/m); // exec.exit-code, exec.cwd; surface.instructions
    expect(suite).not.toMatch(/ failed/);
  } finally {
    await stopServer(bridged);
  }
});
