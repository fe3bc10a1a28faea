// Seed 003's flag rules: every refused combination exits 2 with one line on stderr that names
// the flag and the fix, and prints nothing on stdout.

import { expect, requirement } from '../harness/fixtures.js';
import { runZodexd } from '../harness/process.js';

const REFUSED: { args: string[]; env?: Record<string, string>; mentions: RegExp }[] = [
  { args: ['--listen', '127.0.0.1:7391'], mentions: /--listen.*--transport http/ },
  { args: ['--transport', 'stdio', '--allow-host', 'host.docker.internal'], mentions: /--allow-host.*--transport http/ },
  { args: ['--transport', 'http', '--listen', '0.0.0.0:7391'], mentions: /--listen 0\.0\.0\.0:7391.*wildcard/ },
  { args: ['--transport', 'http', '--listen', '[::]:7391'], mentions: /wildcard/ },
  { args: ['--transport', 'http', '--listen', ':7391'], mentions: /wildcard/ },
  { args: ['--transport', 'http', '--allow-host', 'host.docker.internal:7391'], mentions: /--allow-host.*without a port.*--allow-host host\.docker\.internal/ },
  { args: ['--transport', 'carrier-pigeon'], mentions: /--transport "carrier-pigeon".*stdio, http/ },
  { args: ['--mode', 'remote'], mentions: /--mode "remote".*local, sprite/ },
  { args: ['--max-exec-timeout-ms', 'soon'], mentions: /--max-exec-timeout-ms "soon".*whole number/ },
  { args: ['--no-such-flag'], mentions: /no-such-flag/ },
  { args: [], env: { ZODEX_TRANSPORT: 'ftp' }, mentions: /--transport "ftp"/ },
];

requirement('cli.refusals', async () => {
  for (const { args, env, mentions } of REFUSED) {
    const { code, stdout, stderr } = await runZodexd(args, env);
    const label = `zodexd ${args.join(' ')} ${JSON.stringify(env ?? {})}`;
    expect(code, label).toBe(2);
    expect(stdout, label).toBe('');
    expect(stderr.trimEnd().split('\n'), label).toHaveLength(1);
    expect(stderr, label).toMatch(mentions);
  }
});
