// The control socket against a real engine session: tail (recent output, live pieces, the end),
// input and kill (recorded as operator actions, without the typed text), the errors, and the
// socket's privacy rules.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecEngine } from '../../../src/exec/engine.js';
import { describeOperatorInput, startControlServer, type ControlServer } from '../../../src/features/liveboard/control.js';
import { controlSocketPath } from '../../../src/features/liveboard/paths.js';
import { controlCall, controlStream, type ControlReply } from '../../../src/features/liveboard/protocol.js';
import type { TailRings } from '../../../src/features/liveboard/tail.js';
import { openStore, type Store } from '../../../src/features/store/index.js';
import { realEngine, scratch, until } from './support.js';

let dir: string;
let stateDir: string;
let store: Store;
let serverId: string;
let agentId: string;
let engine: ExecEngine;
let tails: TailRings;
let control: ControlServer;
const warnings: string[] = [];

beforeAll(async () => {
  dir = scratch('control');
  stateDir = path.join(dir, 'state');
  store = openStore({ stateDir, warn: (message) => warnings.push(message) });
  serverId = store.registerServer({ transport: 'stdio', pid: process.pid, mode: 'local' });
  agentId = store.registerAgent(serverId);
  ({ engine, tails } = realEngine(store, serverId, path.join(dir, 'spill')));
  control = startControlServer({ sessions: () => engine.list(), store, serverId, stateDir, tails, log: (message) => warnings.push(message) });
  await control.ready;
});

afterAll(async () => {
  await engine.shutdown();
  await control.close();
  store.close();
});

function start(cmd: string) {
  return engine.start({ cmd, cwd: dir, timeoutMs: 30_000, owner: 'spec', agentId });
}

// Collects a tail stream's replies until it closes.
function tail(sessionId: string): { replies: ControlReply[]; text: () => string; closed: Promise<void>; cancel: () => void } {
  const replies: ControlReply[] = [];
  let cancel = () => {};
  const closed = new Promise<void>((resolve) => {
    cancel = controlStream(controlSocketPath(stateDir, serverId), { version: 1, op: 'tail', sessionId }, (reply) => replies.push(reply), resolve);
  });
  const text = () => replies.map((reply) => (reply.ok && reply.event === 'output' ? reply.text : '')).join('');
  return { replies, text, closed, cancel };
}

describe('the control socket', () => {
  it('listens at <stateDir>/run/<serverId>.sock, 0600 in a 0700 folder, without a warning', () => {
    expect(control.socketPath).toBe(path.join(stateDir, 'run', `${serverId}.sock`));
    expect(fs.statSync(control.socketPath!).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(stateDir, 'run')).mode & 0o777).toBe(0o700);
    expect(warnings).toEqual([]);
  });

  it('tails a session: the recent output first, then live pieces, then the end', async () => {
    const session = await start('echo first; sleep 0.3; echo second; sleep 0.3; echo third');
    const recent = () => {
      const subscription = tails.get(session.id)?.subscribe(() => {});
      subscription?.unsubscribe();
      return subscription?.recent.includes('first') || undefined;
    };
    await until(recent, 5_000, 'first line');
    const stream = tail(session.id);
    await stream.closed;
    const [head, ...rest] = stream.replies;
    expect(head).toMatchObject({ ok: true, event: 'output', replace: true });
    expect((head as { text: string }).text).toContain('first');
    expect((head as { text: string }).text).not.toContain('third');
    expect(stream.text()).toMatch(/first\n[\s\S]*second\n[\s\S]*third\n/);
    expect(rest.at(-1)).toEqual({ ok: true, event: 'end', exitCode: 0, reason: 'exit' });
  });

  it('types into a session and records the operator action with the character count only', async () => {
    const session = await start('read -r line; echo "got $line"');
    const stream = tail(session.id);
    const reply = await controlCall(controlSocketPath(stateDir, serverId), { version: 1, op: 'input', sessionId: session.id, chars: 'hunter2\n' });
    expect(reply).toEqual({ ok: true });
    await stream.closed;
    expect(stream.text()).toContain('got hunter2');
    const actions = store.history({ agentId }).filter((row) => row.actor === 'operator' && row.sessionId === session.id);
    expect(actions).toMatchObject([{ tool: 'operator.input', summary: '8 characters, ending with Enter', agentId }]);
    expect(JSON.stringify(store.history())).not.toContain('hunter2');
  });

  it('kills a session: its tail ends with "killed" and the kill is recorded', async () => {
    const session = await start('echo ready; sleep 30');
    const stream = tail(session.id);
    await until(() => stream.text().includes('ready') || undefined, 5_000, 'ready');
    const started = Date.now();
    expect(await controlCall(controlSocketPath(stateDir, serverId), { version: 1, op: 'kill', sessionId: session.id })).toEqual({ ok: true });
    await stream.closed;
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(stream.replies.at(-1)).toMatchObject({ ok: true, event: 'end', reason: 'killed' });
    expect(session.end?.reason).toBe('killed');
    expect(store.history({ agentId }).filter((row) => row.sessionId === session.id && row.actor === 'operator')).toMatchObject([{ tool: 'operator.kill' }]);
    // An ended session takes no input.
    const late = await controlCall(controlSocketPath(stateDir, serverId), { version: 1, op: 'input', sessionId: session.id, chars: 'x' });
    expect(late).toMatchObject({ ok: false, error: { code: 'SESSION_EXITED' } });
  });

  it('answers unknown sessions and malformed requests with a coded error', async () => {
    const socketPath = controlSocketPath(stateDir, serverId);
    expect(await controlCall(socketPath, { version: 1, op: 'kill', sessionId: 'snosuchsession' })).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_SESSION' },
    });
    const raw = (line: string) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(socketPath, () => socket.write(line));
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
      });
    expect(JSON.parse(await raw('not json\n'))).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(JSON.parse(await raw('{"version":2,"op":"kill","sessionId":"s1"}\n'))).toMatchObject({ ok: false, error: { code: 'UNSUPPORTED_VERSION' } });
    expect(JSON.parse(await raw('{"version":1,"op":"input","sessionId":"../x","chars":"a"}\n'))).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    expect(JSON.parse(await raw('{"version":1,"op":"reboot"}\n'))).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('reports a zodexd without a socket as unreachable', async () => {
    const reply = await controlCall(controlSocketPath(stateDir, 'zdeadbeef0000'), { version: 1, op: 'kill', sessionId: 's1' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'UNREACHABLE', message: expect.stringContaining('no control socket') } });
  });
});

describe('the control folder', () => {
  it('refuses a symlinked run folder, on both sides, with one warning', async () => {
    const other = scratch('control-link');
    const linkedState = path.join(other, 'state');
    fs.mkdirSync(linkedState, { mode: 0o700 });
    fs.mkdirSync(path.join(other, 'elsewhere'), { mode: 0o700 });
    fs.symlinkSync(path.join(other, 'elsewhere'), path.join(linkedState, 'run'));
    const seen: string[] = [];
    const server = startControlServer({ sessions: () => [], store, serverId: 'zlinked000000', stateDir: linkedState, tails, log: (m) => seen.push(m) });
    await server.ready;
    expect(server.socketPath).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/no control socket.*symbolic link/);
    const reply = await controlCall(controlSocketPath(linkedState, 'zlinked000000'), { version: 1, op: 'kill', sessionId: 's1' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'UNREACHABLE', message: expect.stringContaining('symbolic link') } });
    await server.close();
  });

  it('refuses a run folder other users can enter', async () => {
    const other = scratch('control-open');
    fs.mkdirSync(path.join(other, 'run'), { mode: 0o755 });
    fs.chmodSync(path.join(other, 'run'), 0o755);
    const seen: string[] = [];
    const server = startControlServer({ sessions: () => [], store, serverId: 'zopen00000000', stateDir: other, tails, log: (m) => seen.push(m) });
    await server.ready;
    expect(server.socketPath).toBeUndefined();
    expect(seen[0]).toMatch(/mode 755.*chmod 700/);
    await server.close();
  });

  it('removes its socket on close, and at start the sockets nobody listens on', async () => {
    const other = scratch('control-prune');
    const id = 'zprune0000000';
    fs.mkdirSync(path.join(other, 'run'), { mode: 0o700 });
    const dead = path.join(other, 'run', 'zdead00000000.sock');
    // A process killed with SIGKILL leaves its socket file behind.
    spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(dead)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    fs.writeFileSync(path.join(other, 'run', 'notes.txt'), 'not a socket');
    const alive = path.join(other, 'run', 'zalive0000000.sock');
    const aliveServer = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => aliveServer.listen(alive, resolve));
    expect(fs.existsSync(dead)).toBe(true);
    const server = startControlServer({ sessions: () => [], store, serverId: id, stateDir: other, tails, log: () => {} });
    await server.ready;
    await until(() => !fs.existsSync(dead) || undefined, 2_000, 'the dead socket removed');
    expect(fs.existsSync(alive)).toBe(true); // another live zodexd's socket stays
    expect(fs.existsSync(path.join(other, 'run', 'notes.txt'))).toBe(true);
    expect(fs.existsSync(server.socketPath!)).toBe(true);
    await server.close();
    expect(fs.existsSync(path.join(other, 'run', `${id}.sock`))).toBe(false);
    await new Promise((resolve) => aliveServer.close(resolve));
  });

  it('describes operator input by its length only', () => {
    expect(describeOperatorInput('a')).toBe('1 character');
    expect(describeOperatorInput('secret\n')).toBe('7 characters, ending with Enter');
    expect(describeOperatorInput('😀😀')).toBe('2 characters');
  });
});
