// zodex-agent, the command an agent runs through exec_command: `github status`, `github
// publish-pr`, `github push`. It reads the checkout (toplevel, branch, HEAD, commit message),
// sends the publisher one request over its socket, and prints the answer. It never sees a token.
// Exit codes: 0 ok, 1 refused or failed (one line on stderr), 2 usage.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WRITE_MODE_ENV, WRITE_MODES, type WriteMode } from '../../bounds/modes.js';
import { sendPublisherRequest } from './client.js';
import { PublisherError } from './errors.js';
import { AGENT_ID_ENV, defaultPublisherSocket, PUBLISHER_SOCKET_ENV } from './paths.js';
import { publishResultSchema, pushResultSchema, statusResultSchema, type PublisherResponse } from './protocol.js';

export interface AgentIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string>;
}

const MAX_BODY_BYTES = 256 * 1024;

export const AGENT_USAGE = `Usage: zodex-agent github <command> [options]

GitHub writes go through the zodex publisher, which holds the write token; this command never
sees it. The operator's write mode (zodexd's, in $ZODEX_WRITE_MODE; the publisher's must be the
same) decides what is allowed: read-only (nothing; the publisher is out of reach), publish-pr,
direct.

Commands:
  github status                 show the write mode (zodexd's and the publisher's) and the rules
  github publish-pr             push the checked-out branch and open a pull request; prints its URL
      --base BRANCH             the PR's base (default: the repository's default branch)
      --title TEXT              PR title (default: the commit's subject line)
      --body-file FILE          PR body from FILE, - for stdin (default: the commit message body)
      --draft                   open it as a draft
  github push                   direct mode only: push HEAD to a branch of the remote (never forced)
      --to BRANCH               the remote branch (default: the checked-out branch's name)

Options for every command:
  --remote NAME                 the checkout's remote to publish to (default: the publisher's, origin)
  --socket PATH                 the publisher's socket (default: $${PUBLISHER_SOCKET_ENV}, else
                                $XDG_RUNTIME_DIR/zodex/publisher.sock or /tmp/zodex-UID/publisher/publisher.sock)
  --json                        print the publisher's answer as JSON
  -h, --help                    this text

Run publish-pr and push from a clean checkout (commit everything first) on a branch.
Exit codes: 0 done, 1 refused or failed (the reason is on stderr), 2 usage error.
`;

class AgentUsageError extends Error {}

const options = {
  base: { type: 'string' },
  title: { type: 'string' },
  'body-file': { type: 'string' },
  draft: { type: 'boolean' },
  to: { type: 'string' },
  remote: { type: 'string' },
  socket: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

const FLAGS_OF: Record<string, ReadonlySet<string>> = {
  status: new Set(['socket', 'json', 'help']),
  'publish-pr': new Set(['base', 'title', 'body-file', 'draft', 'remote', 'socket', 'json', 'help']),
  push: new Set(['to', 'remote', 'socket', 'json', 'help']),
};

function git(args: string[], io: AgentIo): Promise<{ ok: boolean; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd: io.cwd, env: { ...io.env, GIT_PAGER: 'cat', LC_ALL: 'C' }, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ ok: !error, out: stdout, err: stderr }),
    );
  });
}

interface Checkout {
  toplevel: string;
  branch: string;
  commit: string;
  message: string;
}

async function readCheckout(io: AgentIo): Promise<Checkout> {
  const top = await git(['rev-parse', '--show-toplevel'], io);
  if (!top.ok)
    throw new PublisherError(
      'NOT_A_GIT_CHECKOUT',
      `${io.cwd} is not inside a git checkout; cd into your checkout (or pass its path as exec_command's workdir)`,
    );
  const toplevel = top.out.trim();
  const ref = await git(['symbolic-ref', '-q', 'HEAD'], { ...io, cwd: toplevel });
  if (!ref.ok || !ref.out.startsWith('refs/heads/')) {
    throw new PublisherError('DETACHED_HEAD', `HEAD in ${toplevel} is detached; check out a branch first (git switch -c my-branch)`);
  }
  const head = await git(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { ...io, cwd: toplevel });
  const branch = ref.out.trim().slice('refs/heads/'.length);
  if (!head.ok) throw new PublisherError('NOT_A_GIT_CHECKOUT', `branch ${branch} has no commits yet; commit your work first`);
  const log = await git(['log', '-1', '--format=%B', 'HEAD'], { ...io, cwd: toplevel });
  return { toplevel, branch, commit: head.out.trim(), message: log.out };
}

function splitMessage(message: string): { subject: string; body: string } {
  const lines = message.replace(/\r\n/g, '\n').split('\n');
  const subject = (lines[0] ?? '').trim();
  return { subject, body: lines.slice(1).join('\n').trim() };
}

async function readBody(file: string, io: AgentIo): Promise<string> {
  let text: string;
  if (file === '-') text = await io.readStdin();
  else {
    const full = path.resolve(io.cwd, file);
    try {
      text = fs.readFileSync(full, 'utf8');
    } catch (error) {
      throw new AgentUsageError(`--body-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new AgentUsageError(`--body-file ${file} is larger than ${MAX_BODY_BYTES} bytes; shorten it`);
  return text;
}

function unwrap(response: PublisherResponse): Record<string, unknown> {
  if (!response.ok) throw new PublisherError(response.error.code as never, response.error.message);
  return response.result;
}

export async function runAgentCli(argv: string[], io: AgentIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof AgentUsageError) {
      io.stderr(`zodex-agent: ${error.message}; see zodex-agent --help\n`);
      return 2;
    }
    const code = error instanceof PublisherError ? error.code : 'INTERNAL';
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`zodex-agent: ${code}: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 1;
  }
}

async function run(argv: string[], io: AgentIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new AgentUsageError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const [group, command, ...extra] = parsed.positionals;
  const flags = parsed.values;
  if (group === undefined || (flags.help && command === undefined)) {
    if (group !== undefined && group !== 'github') throw new AgentUsageError(`unknown command ${JSON.stringify(group)}`);
    if (!flags.help) throw new AgentUsageError('missing command, e.g. zodex-agent github status');
    io.stdout(AGENT_USAGE);
    return 0;
  }
  if (group !== 'github') throw new AgentUsageError(`unknown command ${JSON.stringify(group)}; the commands are under \`zodex-agent github\``);
  if (command === undefined) throw new AgentUsageError('missing github command: status, publish-pr or push');
  const allowed = FLAGS_OF[command];
  if (!allowed) throw new AgentUsageError(`unknown github command ${JSON.stringify(command)}; use status, publish-pr or push`);
  if (extra.length > 0) throw new AgentUsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  for (const name of Object.keys(flags)) {
    if (!allowed.has(name)) throw new AgentUsageError(`--${name} does not apply to github ${command}`);
  }
  if (flags.help) {
    io.stdout(AGENT_USAGE);
    return 0;
  }

  const socketPath = flags.socket ?? (io.env[PUBLISHER_SOCKET_ENV] || defaultPublisherSocket(io.env));
  // The session's write mode, as zodexd set it (absent outside a zodexd session).
  const modeValue = io.env[WRITE_MODE_ENV];
  const sessionMode = (WRITE_MODES as readonly string[]).includes(modeValue ?? '') ? (modeValue as WriteMode) : undefined;
  const agentIdValue = io.env[AGENT_ID_ENV];
  const agentId = agentIdValue && /^[A-Za-z0-9_-]{1,64}$/.test(agentIdValue) ? agentIdValue : undefined;
  const id = `${agentId ?? 'agent'}-${randomBytes(6).toString('hex')}`;
  const json = flags.json ?? false;

  if (command === 'status') {
    if (sessionMode === 'read-only') {
      // zodexd masks the publisher's socket from read-only sessions: nothing to ask it.
      if (json) io.stdout(`${JSON.stringify({ mode: 'read-only', publisher: 'unreachable from read-only sessions' })}\n`);
      else io.stdout(`write mode: read-only (zodexd)\npublisher: out of reach: in read-only mode commands cannot push or open pull requests at all\n`);
      return 0;
    }
    const status = statusResultSchema.parse(unwrap(await sendPublisherRequest(socketPath, { op: 'status' }, id)));
    if (json) io.stdout(`${JSON.stringify({ ...status, ...(sessionMode ? { sessionMode } : {}) })}\n`);
    else {
      const agreement =
        sessionMode === undefined
          ? ''
          : sessionMode === status.mode
            ? ' (zodexd and the publisher agree)'
            : ` (the publisher's; zodexd runs this session in ${sessionMode}: they disagree, so the publisher refuses requests until the operator starts both with the same --write-mode)`;
      const lines = [
        `write mode: ${status.mode}${agreement}`,
        `publisher: ${socketPath} (pid ${status.pid}, zodex ${status.version}, token ${status.tokenLoaded ? 'loaded' : 'absent'})`,
        `github api: ${status.apiBase}`,
        `default remote: ${status.defaultRemote}`,
        `protected branches: ${status.protectedBranches.join(', ') || 'none'}`,
        `allowed remotes: ${status.allowedRemotes.join(', ') || 'none'}`,
      ];
      if (agentId) lines.push(`agent id: ${agentId}`);
      io.stdout(`${lines.join('\n')}\n`);
    }
    return 0;
  }

  if (sessionMode === 'read-only') {
    throw new PublisherError(
      'WRITE_MODE_READ_ONLY',
      `zodexd runs this session in read-only mode: nothing can be pushed and no pull request opened. The operator chooses the write mode (zodexd --write-mode)`,
    );
  }
  if (command === 'push' && sessionMode === 'publish-pr') {
    throw new PublisherError(
      'WRITE_MODE_NO_DIRECT',
      'zodexd runs this session in publish-pr mode, which does not allow direct pushes; use zodex-agent github publish-pr to open a pull request instead',
    );
  }
  const checkout = await readCheckout(io);
  const common = {
    ...(agentId ? { agentId } : {}),
    ...(sessionMode ? { writeMode: sessionMode } : {}),
    repoPath: checkout.toplevel,
    branch: checkout.branch,
    commit: checkout.commit,
    ...(flags.remote ? { remote: flags.remote } : {}),
  };

  if (command === 'push') {
    const body = { op: 'push', ...common, ...(flags.to ? { target: flags.to } : {}) };
    const result = pushResultSchema.parse(unwrap(await sendPublisherRequest(socketPath, body, id)));
    if (json) io.stdout(`${JSON.stringify(result)}\n`);
    else {
      const from = result.previous ? `${result.previous.slice(0, 12)}..` : 'new branch ';
      io.stdout(`pushed ${result.commit.slice(0, 12)} to ${result.repository} ${result.target} (${from}${result.commit.slice(0, 12)})\n`);
    }
    return 0;
  }

  const message = splitMessage(checkout.message);
  const title = flags.title ?? message.subject;
  if (!title.trim()) throw new AgentUsageError('the commit has no subject line to use as the title; pass --title');
  const prBody = flags['body-file'] !== undefined ? await readBody(flags['body-file'], io) : message.body;
  const body = {
    op: 'publish-pr',
    ...common,
    title,
    body: prBody,
    ...(flags.base ? { base: flags.base } : {}),
    ...(flags.draft ? { draft: true } : {}),
  };
  const result = publishResultSchema.parse(unwrap(await sendPublisherRequest(socketPath, body, id)));
  if (json) io.stdout(`${JSON.stringify(result)}\n`);
  else {
    io.stdout(`${result.prUrl}\n`);
    const what = result.existingPr ? `updated the open pull request #${result.prNumber}` : `opened pull request #${result.prNumber}`;
    io.stderr(`zodex-agent: pushed ${result.branch} at ${result.commit.slice(0, 12)} to ${result.repository} and ${what} into ${result.base}\n`);
  }
  return 0;
}
