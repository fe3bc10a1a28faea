// @ts-check
// Whether interactive Codex (the TUI, in a PTY) holds a zodex call for approval under
// approval_policy "on-request" and a read-only sandbox, with seed and with truthful annotations.
// Run: node interop/measure/codex-approval-tui.mjs [path/to/zodexd.js]   (needs --annotations;
// prints, per setting, whether the call ran and the approval question if one was shown).
// daemon_auto_start = false: else the TUI leaves a Codex app-server daemon running after it.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { openAiToolResults, startOpenAiMock } from '../lib/mock-openai.mjs';
import { INTEROP, REPO, ZODEXD, codexConfig, scratch } from '../lib/clients.mjs';
import { echoScript } from '../lib/scenario.mjs';

/** @type {typeof import('node-pty')} */
const pty = createRequire(path.join(REPO, 'package.json'))('node-pty');
const zodexd = process.argv[2] ?? ZODEXD;

for (const annotations of ['all-read-only', 'truthful']) {
  const space = scratch('tui');
  const mock = await startOpenAiMock(echoScript('mcp__zodex__exec_command', 'tui-marker', space.dir));
  fs.mkdirSync(path.join(space.dir, 'codex'));
  const servers = `[mcp_servers.zodex]\ncommand = "node"\nargs = ["${zodexd}", "--annotations", "${annotations}"]\nrequired = true\n\n[projects."${space.dir}"]\ntrust_level = "trusted"\n`;
  fs.writeFileSync(
    path.join(space.dir, 'codex/config.toml'),
    `approval_policy = "on-request"\nsandbox_mode = "read-only"\n${codexConfig(mock.url, servers, { shell_tool: false, daemon_auto_start: false })}`,
  );
  const term = pty.spawn(path.join(INTEROP, 'node_modules/.bin/codex'), ['-C', space.dir, 'Print a marker.'], {
    cols: 120,
    rows: 40,
    cwd: space.dir,
    env: { ...process.env, HOME: space.dir, CODEX_HOME: path.join(space.dir, 'codex'), MOCK_API_KEY: 'sk-mock', RUST_BACKTRACE: '0', TERM: 'xterm-256color' },
  });
  let screen = '';
  term.onData((data) => {
    screen += data;
  });
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  term.kill('SIGKILL');
  const plain = screen.replace(/\x1b\[[0-9;?>$]*[a-zA-Z~]/g, ' ').replace(/\s+/g, ' ');
  const ran = mock.main.flatMap((r) => openAiToolResults(r.body)).some((r) => r.text.includes('tui-marker\\n'));
  const question = /Allow the zodex MCP server to run tool "[a-z_]+"\?/.exec(plain)?.[0] ?? null;
  if (process.env.SHOW_SCREEN) console.error(plain.slice(-800));
  console.log(JSON.stringify({ client: 'codex (TUI)', annotations, approval_policy: 'on-request', sandbox: 'read-only', ran, question }));
  await mock.close();
  space.remove();
}
process.exit(0);
