// Secrets out of commands and transcripts (issue 26): the values zodex knows (its HTTP token,
// OAuth tokens as they are minted, the --redact-env values of its own and the login shell's
// environment) are shown as [REDACTED:NAME] wherever output goes, and zodexd keeps no secret in
// an environment a command could read.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, requirement, test } from '../harness/fixtures.js';
import { grantTokens, stopOAuthServers, withOAuth } from '../harness/oauth.js';
import { toolCaller } from '../harness/oauth-era.js';
import { REPO_ROOT } from '../harness/target.js';

const TOKEN = 'zodex-conformance-token-7f3a9c1e5b';
const API_KEY = 'sk-conformance-api-key-4d2b8e6f';
const RC_SECRET = 'rc-exported-secret-9a1c7e3d';
const ESC = '\\033';

test.afterEach(stopOAuthServers);

// Every file under `dir`, as text (latin1: byte for byte).
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name)).toString('latin1'));
}

// The Liveboard's view of a session: the first answer of its zodexd's control socket to `tail`.
async function liveboardTail(stateDir: string, sessionId: string): Promise<string> {
  const run = path.join(stateDir, 'run');
  const socket = path.join(run, fs.readdirSync(run).find((name) => name.endsWith('.sock'))!);
  return new Promise((resolve, reject) => {
    let data = '';
    const client = net.connect(socket, () => client.write(`${JSON.stringify({ version: 1, op: 'tail', sessionId })}\n`));
    client.on('data', (chunk: Buffer) => {
      data += chunk.toString();
      const line = data.split('\n')[0];
      if (data.includes('\n')) {
        client.destroy();
        resolve((JSON.parse(line!) as { text: string }).text);
      }
    });
    client.on('error', reject);
  });
}

requirement('secrets.output-redacted', async ({ zodex }) => {
  test.setTimeout(60_000);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-secrets-'));
  const home = path.join(scratch, 'home');
  const stateDir = path.join(scratch, 'state');
  const spillDir = path.join(scratch, 'spill');
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(home, '.bash_profile'), `export RC_SECRET=${RC_SECRET}\n`);
  try {
    const z = await zodex({
      args: [
        '--mode',
        'local',
        '--state-dir',
        stateDir,
        '--spill-dir',
        spillDir,
        '--redact-env',
        'MY_API_KEY',
        '--redact-env',
        'RC_*',
        '--spill-cap-bytes',
        '40000',
        '--tail-file-bytes',
        '4096',
      ],
      env: { ZODEX_AUTH_TOKEN: TOKEN, MY_API_KEY: API_KEY, HOME: home, SHELL: '/bin/bash' },
    });
    const seen: string[] = [];
    // The token in three writes, with sleeps between them and colour codes inside; the call
    // returns while it is half written: what could still become the token is held back.
    const [a, b, c] = [TOKEN.slice(0, 9), TOKEN.slice(9, 20), TOKEN.slice(20)];
    const first = await z.exec({
      cmd: `printf 'token: ${a}'; sleep 1; printf '${ESC}[31m${b}${ESC}[0m'; sleep 0.3; printf '${c} done\\n'`,
      workdir: '/',
      yield_time_ms: 500,
    });
    expect(first.status).toBe('running');
    expect(first.output).toBe('token: ');
    const { result, output } = await z.finish(first);
    expect(result.status).toBe('exited');
    expect(output).toBe('token: [REDACTED:ZODEX_AUTH_TOKEN] done\n');
    seen.push(output);

    // A --redact-env value of zodexd's environment and one the login shell exports.
    const env = await z.exec({ cmd: 'printf "%s|%s\\n" "$MY_API_KEY" "$RC_SECRET"', workdir: '/' });
    expect(env.output).toBe('[REDACTED:MY_API_KEY]|[REDACTED:RC_SECRET]\n');

    // Past the inline limit and the spill cap: the values at the start land in the spill file,
    // those at the end in the tail file and the preview; each is written in two parts.
    const split = (value: string) => `printf '%s' '${value.slice(0, 7)}'; sleep 0.05; printf '%s\\n' '${value.slice(7)}'`;
    const spilled = await z.exec({ cmd: `${split(API_KEY)}; seq 1 20000; ${split(TOKEN)}; ${split(RC_SECRET)}`, workdir: '/', yield_time_ms: 20_000 });
    expect(spilled.status).toBe('exited');
    expect(spilled.output_file).toBeDefined();
    expect(spilled.output_tail_file).toBeDefined();
    expect(spilled.output_head).toContain('[REDACTED:MY_API_KEY]');
    expect(spilled.output).toContain('[REDACTED:ZODEX_AUTH_TOKEN]\n[REDACTED:RC_SECRET]\n');
    const spillFile = fs.readFileSync(spilled.output_file!, 'utf8');
    expect(spillFile.startsWith('[REDACTED:MY_API_KEY]\n1\n2\n')).toBe(true);
    expect(fs.readFileSync(spilled.output_tail_file!, 'utf8')).toContain('[REDACTED:ZODEX_AUTH_TOKEN]\n[REDACTED:RC_SECRET]\n');
    seen.push(JSON.stringify(spilled), ...filesUnder(spillDir));

    // An error text that would quote an input holding the token.
    const refused = await z.call('exec_command', { cmd: 'true', workdir: `/no/such/${TOKEN}` });
    const refusal = JSON.stringify(refused);
    expect(refusal).toContain('WORKDIR_NOT_FOUND');
    expect(refusal).toContain('[REDACTED:ZODEX_AUTH_TOKEN]');
    seen.push(refusal);
    const unknown = JSON.stringify(await z.call(`tool-${TOKEN}`, {}));
    expect(unknown).toContain('UNKNOWN_TOOL');
    expect(unknown).toContain('[REDACTED:ZODEX_AUTH_TOKEN]');
    seen.push(unknown);

    // The Liveboard's tail of a running command, read from its zodexd's control socket.
    const running = await z.exec({ cmd: `${split(API_KEY)}; sleep 30`, workdir: '/', yield_time_ms: 1_000 });
    expect(running.status).toBe('running');
    const history = JSON.parse(
      execFileSync(process.execPath, [path.join(REPO_ROOT, 'dist/cli/zodex.js'), 'history', '--json', '--state-dir', stateDir], { encoding: 'utf8' }),
    ) as { sessionId: string | null }[];
    const sessionId = history
      .map((row) => row.sessionId)
      .filter(Boolean)
      .at(-1)!;
    const tail = await liveboardTail(stateDir, sessionId);
    expect(tail).toBe('[REDACTED:MY_API_KEY]\n');
    seen.push(tail);
    await z.write({ session_handle: running.session_handle!, kill_process: true });

    seen.push(...filesUnder(stateDir), z.server.stderr());
    expect(seen.join('\n').length).toBeGreaterThan(100_000);
    for (const text of seen) for (const value of [TOKEN, API_KEY, RC_SECRET]) expect(text).not.toContain(value);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});

requirement('secrets.minted-token', async ({ protocol }) => {
  const STATIC = 'static-conformance-token-0123456789';
  await withOAuth(
    [],
    async (srv) => {
      const call = await toolCaller(srv, protocol, STATIC);
      // a folder of the test's own: the state dir is a store governed commands cannot reach
      const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zodex-minted-'));
      const file = path.join(scratch, 'minted.txt');
      const started = await call('exec_command', {
        cmd: `while [ ! -s '${file}' ]; do sleep 0.05; done; cat '${file}'; sleep 0.2`,
        workdir: '/',
        yield_time_ms: 200,
      });
      const handle = (started.reply?.result?.structuredContent as { session_handle?: string } | undefined)?.session_handle;
      expect(handle, JSON.stringify(started.reply)).toMatch(/^zs_/);
      const { accessToken, refreshToken } = await grantTokens(srv, 0); // minted after the command started
      fs.writeFileSync(file, `access ${accessToken}\nrefresh ${refreshToken}\n`);
      const polled = await call('write_stdin', { session_handle: handle, yield_time_ms: 10_000 });
      const output = (polled.reply?.result?.structuredContent as { output?: string } | undefined)?.output;
      expect(output).toBe('access [REDACTED:OAUTH_ACCESS_TOKEN]\nrefresh [REDACTED:OAUTH_REFRESH_TOKEN]\n');
      expect(srv.server.stderr()).not.toContain(accessToken);
      fs.rmSync(scratch, { recursive: true, force: true });
    },
    { env: { ZODEX_AUTH_TOKEN: STATIC } },
  );
});

// zodexd and every process under it, found through /proc/PID/task/*/children.
function processTree(root: number): number[] {
  const pids = [root];
  for (let i = 0; i < pids.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${pids[i]}/task`);
    } catch {
      continue; // ended meanwhile
    }
    for (const task of tasks) {
      try {
        pids.push(...fs.readFileSync(`/proc/${pids[i]}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
      } catch {
        // ended meanwhile
      }
    }
  }
  return pids;
}

requirement('secrets.no-environ', async ({ zodex }) => {
  const PUBLISHER_TOKEN = 'ghp_conformancePublisherToken0123';
  // --write-mode direct: a governed command cannot read /proc/<zodexd>/environ at all (Landlock,
  // bounds.routes-governed); unconfined, as root here (which non-dumpability does not stop), it can,
  // and finds no token there: zodexd erased it.
  const z = await zodex({ args: ['--write-mode', 'direct'], env: { ZODEX_AUTH_TOKEN: TOKEN, ZODEX_PUBLISHER_TOKEN: PUBLISHER_TOKEN } });
  const pid = z.server.pid;
  // A command reads zodexd's environment itself.
  const running = await z.exec({
    cmd: `tr '\\0' '\\n' < /proc/${pid}/environ | grep -c -e '${TOKEN}' -e '${PUBLISHER_TOKEN}' -e ZODEX_AUTH_TOKEN; env | grep -c -e '${TOKEN}' -e '${PUBLISHER_TOKEN}'; sleep 30`,
    workdir: '/',
    yield_time_ms: 1_000,
  });
  expect(running.output).toBe('0\n0\n');
  const tree = processTree(pid);
  expect(tree.length).toBeGreaterThanOrEqual(3); // zodexd, the zygote or standbys, the command
  for (const each of tree) {
    let environ: string;
    try {
      environ = fs.readFileSync(`/proc/${each}/environ`, 'latin1');
    } catch {
      continue; // ended meanwhile
    }
    expect(environ, `/proc/${each}/environ`).not.toContain(TOKEN);
    expect(environ, `/proc/${each}/environ`).not.toContain(PUBLISHER_TOKEN);
    expect(environ, `/proc/${each}/environ`).not.toContain('ZODEX_AUTH_TOKEN=');
  }
  await z.write({ session_handle: running.session_handle!, kill_process: true });
});
