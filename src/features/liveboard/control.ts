// Each zodexd's control socket: lets any Liveboard of this user act on the sessions this process
// owns (tail, input, kill), whichever process serves the page. Listens on
// <stateDir>/run/<serverId>.sock (see paths.ts; protocol in protocol.ts); removed on close.
// A failure to listen is one warning, never fatal: the MCP tools work without it.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Store } from '../store/index.js';
import { controlFolder, controlSocketPath, ensureControlFolder } from './paths.js';
import { ControlRequestError, MAX_CONTROL_LINE_BYTES, parseControlRequest, REQUEST_TIMEOUT_MS, type ControlReply, type ControlRequest } from './protocol.js';
import { readLines } from '../shared/jsonlines.js';
import { PendingTail, type TailRings } from './tail.js';

// What the control server needs of a session (exec/session.ts's ExecSession).
export interface ControlledSession {
  readonly id: string;
  readonly hasEnded: boolean;
  write(chars: string): void;
  kill(reason: 'killed'): void;
}

export interface ControlOptions {
  sessions: () => Iterable<ControlledSession>; // the engine's list()
  store: Pick<Store, 'operatorAction'>;
  serverId: string;
  stateDir: string;
  tails: TailRings;
  log: (message: string) => void;
}

export interface ControlServer {
  readonly socketPath: string | undefined; // undefined until listening, and when it could not
  readonly ready: Promise<void>; // resolves once listening, or once it gave up (with a warning)
  close(): Promise<void>;
}

// The history line of an operator input: how much was typed, never what (it may be a password).
export function describeOperatorInput(chars: string): string {
  const count = [...chars].length;
  return `${count} character${count === 1 ? '' : 's'}${chars.endsWith('\n') || chars.endsWith('\r') ? ', ending with Enter' : ''}`;
}

export function startControlServer(options: ControlOptions): ControlServer {
  const { log } = options;
  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => serve(socket, options, connections));
  let socketPath: string | undefined;
  let closed = false;

  const ready = (async () => {
    const wanted = controlSocketPath(options.stateDir, options.serverId);
    ensureControlFolder(options.stateDir);
    removeIfSocket(wanted);
    await listenPrivately(server, wanted);
    if (closed) {
      server.close();
      fs.rmSync(wanted, { force: true });
      return;
    }
    socketPath = wanted;
    void pruneDeadSockets(controlFolder(options.stateDir), wanted);
  })().catch((error: unknown) => {
    log(
      `warning: no control socket, so Liveboards cannot tail, type into or kill this zodexd's sessions: ${error instanceof Error ? error.message : String(error)}`,
    );
  });

  return {
    get socketPath() {
      return socketPath;
    },
    ready,
    async close() {
      if (closed) return;
      closed = true;
      await ready;
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (socketPath) fs.rmSync(socketPath, { force: true });
    },
  };
}

function serve(socket: net.Socket, options: ControlOptions, connections: Set<net.Socket>): void {
  connections.add(socket);
  socket.on('close', () => connections.delete(socket));
  socket.on('error', () => undefined);
  socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
  let handled = false;
  readLines(socket, MAX_CONTROL_LINE_BYTES, (line) => {
    if (handled) return; // one request per connection
    handled = true;
    socket.setTimeout(0);
    try {
      handle(parseControlRequest(line), socket, options);
    } catch (error) {
      const code = error instanceof ControlRequestError ? error.code : 'BAD_REQUEST';
      reply(socket, { ok: false, error: { code, message: error instanceof Error ? error.message : String(error) } }, true);
    }
  });
}

function reply(socket: net.Socket, message: ControlReply, last = false): boolean {
  if (socket.destroyed) return false;
  const line = `${JSON.stringify(message)}\n`;
  if (last) {
    socket.end(line);
    return true;
  }
  return socket.write(line);
}

function handle(request: ControlRequest, socket: net.Socket, options: ControlOptions): void {
  const { store, tails } = options;
  if (request.op === 'tail') {
    const ring = tails.get(request.sessionId);
    if (!ring)
      throw new ControlRequestError('UNKNOWN_SESSION', `this zodexd has no output of session ${request.sessionId}: it never ran here, or it ended a while ago`);
    return streamTail(socket, ring);
  }
  const session = [...options.sessions()].find((candidate) => candidate.id === request.sessionId);
  if (!session) throw new ControlRequestError('UNKNOWN_SESSION', `this zodexd has no session ${request.sessionId}`);
  if (session.hasEnded) throw new ControlRequestError('SESSION_EXITED', `session ${request.sessionId} has already ended`);
  if (request.op === 'input') {
    session.write(request.chars);
    store.operatorAction({ sessionId: session.id, action: 'input', detail: describeOperatorInput(request.chars) });
  } else {
    session.kill('killed');
    store.operatorAction({ sessionId: session.id, action: 'kill' });
  }
  reply(socket, { ok: true }, true);
}

// The recent output, then each piece as it comes, then the end. A reader that falls behind gets
// the pieces joined (and, past the pending limit, only the latest, marked as a gap).
function streamTail(socket: net.Socket, ring: NonNullable<ReturnType<TailRings['get']>>): void {
  const pending = new PendingTail();
  let waiting = false; // the socket's buffer is full: collect until it drains
  let ended: ControlReply | undefined;
  const flush = () => {
    waiting = false;
    if (!pending.isEmpty) {
      const { text, gap } = pending.take();
      waiting = !reply(socket, { ok: true, event: 'output', text, ...(gap ? { gap: true as const } : {}) });
    }
    if (!waiting && ended) reply(socket, ended, true);
  };
  socket.on('drain', flush);
  const subscription = ring.subscribe((event) => {
    if ('text' in event) {
      pending.add(event.text);
      if (!waiting) flush();
    } else {
      ended = { ok: true, event: 'end', exitCode: event.end.exitCode, reason: event.end.reason };
      if (!waiting) flush();
    }
  });
  socket.on('close', subscription.unsubscribe);
  waiting = !reply(socket, { ok: true, event: 'output', text: subscription.recent, replace: true });
  if (subscription.ended) {
    ended = { ok: true, event: 'end', exitCode: subscription.ended.exitCode, reason: subscription.ended.reason };
    if (!waiting) flush();
  }
}

// No umask games (they would race with files the rest of the process creates): the folder is
// 0700, so nobody else can reach the socket in the moment before it is made 0600.
function listenPrivately(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      fs.chmodSync(socketPath, 0o600);
      resolve();
    });
  });
}

// A leftover at our own path (a crashed process with a preset id) is a socket nobody serves.
function removeIfSocket(file: string): void {
  try {
    if (fs.lstatSync(file).isSocket()) fs.unlinkSync(file);
  } catch {
    // nothing there
  }
}

// Sockets of zodexd processes that died without cleaning up (SIGKILL, a crash) are removed, so
// the folder does not grow: a socket nobody accepts on is dead, whatever the store says.
async function pruneDeadSockets(dir: string, own: string): Promise<void> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith('.sock'));
  } catch {
    return;
  }
  await Promise.all(
    names
      .map((name) => path.join(dir, name))
      .filter((file) => file !== own)
      .map(
        (file) =>
          new Promise<void>((resolve) => {
            const probe = net.connect(file);
            probe.once('connect', () => {
              probe.destroy();
              resolve();
            });
            probe.once('error', (error: NodeJS.ErrnoException) => {
              if (error.code === 'ECONNREFUSED') removeIfSocket(file);
              resolve();
            });
          }),
      ),
  );
}
