// Clients that were not written here: the MCP inspector's CLI, over HTTP and over stdio.

import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, requirement } from '../harness/fixtures.js';
import { ZODEXD, packageDir, startHttpServer, stopServer } from '../harness/target.js';

const run = promisify(execFile);

// inspector-cli 1.0.3 finds its own package.json relative to the working directory, so it
// runs from its build folder (a bug of that version, not of ours). A devDependency: found when the
// test runs (in a zodex checkout), not when the file loads (an installed suite has none).
async function inspector(target: string[], args: string[]): Promise<unknown> {
  const build = path.join(packageDir('@modelcontextprotocol/inspector-cli'), 'build');
  const { stdout } = await run(process.execPath, [path.join(build, 'index.js'), ...target, ...args], { timeout: 60_000, cwd: build });
  return JSON.parse(stdout);
}

requirement('interop.inspector-cli', async () => {
  const server = await startHttpServer([]);
  try {
    const targets: [string, string[]][] = [
      ['http', [server.url]],
      ['stdio', [process.execPath, ZODEXD]],
    ];
    for (const [name, target] of targets) {
      const listed = (await inspector(target, ['--method', 'tools/list'])) as { tools: { name: string }[] };
      expect(
        listed.tools.map((tool) => tool.name),
        name,
      ).toEqual(expect.arrayContaining(['exec_command', 'write_stdin', 'apply_patch']));
      const called = (await inspector(target, [
        '--method',
        'tools/call',
        '--tool-name',
        'exec_command',
        '--tool-arg',
        'cmd=echo from-inspector',
        'workdir=/',
      ])) as {
        structuredContent: { output: string; exit_code: number };
      };
      expect(called.structuredContent, name).toMatchObject({ output: 'from-inspector\n', exit_code: 0 });
    }
  } finally {
    await stopServer(server);
  }
});
