// The publisher daemon: a unix socket (0600 in a 0700 folder of ours, or 0660/0710 of the
// --socket-group) that takes one request per connection, runs it, answers, and logs one line.
// Publications run one at a time.
// Flow: connection -> admitPeer (peers.ts: not our own uid; `status` is answered to anyone) ->
// readLine -> parseRequest -> the request's write mode is ours -> status | publishPullRequest | pushDirect ->
// response line -> log line + history row. Every text that leaves (response, log, history) has
// been through the redactor; the token itself lives only in a Secret and in git's environment.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { WriteMode } from '../../bounds/modes.js';
import { acceptsConnections } from '../../net/unix-socket.js';
import type { PublisherConfig } from './config.js';
import { PublisherError, REFUSAL_CODES, type PublisherErrorCode } from './errors.js';
import { createGitRunner, StagingRepo } from './git.js';
import { GitHubClient } from './github.js';
import type { PublicationLog, PublicationOutcome } from './history.js';
import { ensureSocketFolder } from './paths.js';
import { admitPeer, type PeerPolicy } from './peers.js';
import { parseRequest, PROTOCOL_VERSION, readLine, requestIdOf, type PublisherRequest, type PublisherResponse, type StatusResult } from './protocol.js';
import { publishPullRequest, pushDirect, type PublicationFacts, type PublishContext } from './publish.js';
import { describeAllowedRemote } from './remotes.js';
import { redactor, type Secret } from './token.js';

export const REQUEST_READ_TIMEOUT_MS = 10_000; // a client that connects and says nothing

export interface PublisherDaemonOptions {
  socketPath: string;
  mode: WriteMode;
  config: PublisherConfig;
  token: Secret | undefined;
  // The file the token was read from (--token-file), named in `status` so that zodexd masks it.
  tokenFile?: string | undefined;
  // The staging repository lives in <stateDir>/publisher/staging.git.
  stateDir: string;
  publications: PublicationLog;
  // One line per request and per warning; never holds the token.
  log: (line: string) => void;
  version: string;
  gitBinary?: string;
  // The environment git children start from (secrets and GIT_* are removed); default process.env.
  env?: NodeJS.ProcessEnv;
  // Which clients are served (peers.ts): a same-user client only with allowSameUser.
  peers: PeerPolicy;
  // --socket-group: members of this group may connect (socket 0660, folder 0710).
  socketGroup?: number;
  // --user: the socket and its folder are handed to this user (the caller drops to it after start).
  owner?: { uid: number; gid: number };
}

export interface PublisherDaemon {
  socketPath: string;
  close(): Promise<void>;
}

// Refuses to take over a socket another publisher is serving; removes a stale one.
async function clearStaleSocket(socketPath: string): Promise<void> {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(socketPath);
  } catch {
    return;
  }
  if (!stat.isSocket()) {
    throw new PublisherError('SOCKET_IN_USE', `${socketPath} exists and is not a socket; remove it or pass another --socket`);
  }
  if (await acceptsConnections(socketPath))
    throw new PublisherError('SOCKET_IN_USE', `another publisher is already listening on ${socketPath}; stop it first or pass another --socket`);
  fs.unlinkSync(socketPath);
}

function listenPrivately(server: net.Server, socketPath: string, group: number | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const previous = process.umask(0o177); // the socket is born 0600
    server.once('error', (error) => {
      process.umask(previous);
      reject(error);
    });
    server.listen(socketPath, () => {
      process.umask(previous);
      if (group !== undefined) fs.chownSync(socketPath, -1, group);
      fs.chmodSync(socketPath, group === undefined ? 0o600 : 0o660);
      resolve();
    });
  });
}

// --user: the socket and the folders made for it belong to the user the daemon drops to, so that
// it can remove the socket when it stops; the group stays the --socket-group if there is one.
function handOver(socketPath: string, folder: string, owner: { uid: number; gid: number }, group: number | undefined): void {
  for (const entry of [socketPath, folder]) fs.chownSync(entry, owner.uid, group ?? owner.gid);
}

export async function startPublisherDaemon(options: PublisherDaemonOptions): Promise<PublisherDaemon> {
  const { socketPath, mode, config, token, publications, log } = options;
  const redact = redactor(token);
  const git = createGitRunner(options.gitBinary, options.env ?? process.env);
  const context: PublishContext = {
    mode,
    config,
    token,
    git,
    staging: new StagingRepo(git, path.join(options.stateDir, 'publisher', 'staging.git')),
    github: token ? new GitHubClient({ apiBase: config.apiBase, token, redact, userAgent: `zodex-publisher/${options.version}` }) : undefined,
    redact,
  };
  const say = (line: string) => log(redact(line));
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };

  const status = (): StatusResult => ({
    mode,
    pid: process.pid,
    version: options.version,
    apiBase: config.apiBase,
    gitBase: config.gitBase,
    defaultRemote: config.defaultRemote,
    protectedBranches: config.protectedBranches,
    allowedRemotes: config.allowedRemotes.map(describeAllowedRemote),
    tokenLoaded: token !== undefined,
    ...(options.tokenFile ? { tokenFile: options.tokenFile } : {}),
    stateDir: options.stateDir,
  });

  async function record(request: PublisherRequest, facts: PublicationFacts, outcome: PublicationOutcome, error?: string): Promise<void> {
    if (request.op === 'status') return;
    try {
      await publications.record({
        ...(request.agentId ? { agentId: request.agentId } : {}),
        repository: facts.repository,
        branch: facts.branch,
        commit: facts.commit,
        ...(facts.prUrl ? { prUrl: facts.prUrl } : {}),
        outcome,
        ...(error ? { error: redact(error) } : {}),
        mode: request.op === 'push' ? `${mode} (push)` : mode,
      });
    } catch (failure) {
      say(`warning: could not record the publication in history: ${failure instanceof Error ? failure.message : String(failure)}`);
    }
  }

  // peerRefusal: throws the PEER_REFUSED the connection earned, for any request but `status`.
  async function handle(line: string, peerRefusal?: () => void): Promise<PublisherResponse> {
    const started = Date.now();
    const id = requestIdOf(line);
    if (peerRefusal && !isStatusRequest(line)) {
      try {
        peerRefusal();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        say(`connection refused: ${message}`);
        return { version: PROTOCOL_VERSION, id, ok: false, error: { code: 'PEER_REFUSED', message } };
      }
    }
    let request: PublisherRequest | undefined;
    const facts: PublicationFacts = { repository: '', branch: '', commit: '' };
    try {
      request = parseRequest(line);
      let result: object;
      if (request.op === 'status') result = status();
      else {
        const body = request;
        if (body.writeMode !== undefined && body.writeMode !== mode) {
          throw new PublisherError(
            'WRITE_MODE_MISMATCH',
            `zodexd runs this session in ${body.writeMode} mode but this publisher runs in ${mode}; the operator must start both with the same --write-mode (ZODEX_WRITE_MODE)`,
          );
        }
        facts.repository = body.repoPath;
        facts.branch = body.branch;
        facts.commit = body.commit;
        result = await serialized<object>(() => (body.op === 'publish-pr' ? publishPullRequest(context, body, facts) : pushDirect(context, body, facts)));
        await record(body, facts, 'published');
      }
      say(logLine(id, request, facts, 'ok', Date.now() - started));
      return { version: PROTOCOL_VERSION, id, ok: true, result: result as Record<string, unknown> };
    } catch (error) {
      let code: PublisherErrorCode | 'INTERNAL' = 'INTERNAL';
      let message: string;
      if (error instanceof PublisherError) {
        code = error.code;
        message = redact(error.message);
      } else {
        message = redact(error instanceof Error ? error.message : String(error));
        say(`internal error: ${redact(error instanceof Error ? (error.stack ?? message) : message)}`);
      }
      const outcome: PublicationOutcome = REFUSAL_CODES.has(code as PublisherErrorCode) ? 'refused' : 'failed';
      if (request) await record(request, facts, outcome, `${code}: ${message}`);
      say(logLine(id, request, facts, `${outcome} ${code}: ${message}`, Date.now() - started));
      return { version: PROTOCOL_VERSION, id, ok: false, error: { code, message } };
    }
  }

  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => undefined);
    let refusal: unknown;
    try {
      admitPeer(socket, options.peers);
    } catch (error) {
      refusal = error;
    }
    const refuse =
      refusal === undefined
        ? undefined
        : () => {
            throw refusal;
          };
    readLine(socket, REQUEST_READ_TIMEOUT_MS, 'request')
      .then(
        (line) => handle(line, refuse),
        (error: unknown) => {
          const code = error instanceof PublisherError ? error.code : 'BAD_REQUEST';
          const message = error instanceof Error ? error.message : String(error);
          say(code === 'PEER_REFUSED' ? `connection refused: ${message}` : `request unreadable: ${code}: ${message}`);
          return { version: PROTOCOL_VERSION, id: null, ok: false, error: { code, message } } satisfies PublisherResponse;
        },
      )
      .then((response) => {
        if (!socket.destroyed) socket.end(`${JSON.stringify(response)}\n`);
      })
      .catch(() => socket.destroy());
  });

  const folder = ensureSocketFolder(socketPath, options.env ?? process.env, options.socketGroup);
  await clearStaleSocket(socketPath);
  await listenPrivately(server, socketPath, options.socketGroup);
  if (options.owner) handOver(socketPath, folder, options.owner, options.socketGroup);
  say(
    `listening on ${socketPath} in ${mode} mode (api ${config.apiBase}, ${config.allowedRemotes.length} allowed remote(s), token ${token ? 'loaded' : 'absent'}` +
      `${options.peers.allowSameUser ? '; WARNING: clients of our own user are served and can read the token' : '; clients of our own user are refused'})`,
  );

  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of connections) socket.destroy();
      }).then(async () => {
        await queue;
        fs.rmSync(socketPath, { force: true });
      });
      return closing;
    },
  };
}

// A well-formed `status` request: the one a client the peer check refuses is still answered.
function isStatusRequest(line: string): boolean {
  try {
    return parseRequest(line).op === 'status';
  } catch {
    return false;
  }
}

function logLine(id: string | null, request: PublisherRequest | undefined, facts: PublicationFacts, outcome: string, ms: number): string {
  const parts = [`id=${id ?? '-'}`, `op=${request?.op ?? '?'}`];
  if (request && request.op !== 'status') {
    parts.push(
      `agent=${request.agentId ?? '-'}`,
      `repo=${facts.repository || '-'}`,
      `branch=${facts.branch || '-'}`,
      `commit=${facts.commit.slice(0, 12) || '-'}`,
    );
    if (facts.prUrl) parts.push(`pr=${facts.prUrl}`);
  }
  parts.push(`ms=${ms}`, `outcome=${outcome}`);
  return parts.join(' ');
}
