// The 2026-07-28 server, transport-agnostic: one request in, one response out.
// Flow: envelope (_meta) check -> method: server/discover | tools/list | tools/call (agent from
// _meta; the commands it starts leased to their handles: exec/handles.ts) | subscriptions/listen
// (held open) | anything else -32601.

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { quote } from '../../errors.js';
import { Conversation } from '../conversation.js';
import type { ServerRuntime } from '../options.js';
import { serverInfo, toolsFor } from '../server.js';
import { UNKNOWN_TOOL_LABEL, unknownToolError, type CallExtra, type ToolEntry } from '../tools.js';
import { unknownToolCall } from '../../tools/index.js';
import { AgentTable, agentKeyOf } from './agents.js';
import { INVALID_PARAMS, META, METHOD_NOT_FOUND, readEnvelope, type Envelope } from '../../wire/rev2026-07-28/envelope.js';
import { LIST_TTL_MS, discoverResponse, noteClient, okResult } from '../../wire/rev2026-07-28/discover.js';

export { LIST_TTL_MS };

export type RequestId = string | number;
export interface Rev2026Request {
  id: RequestId;
  method: string;
  params?: Record<string, unknown> | undefined;
}
export type Rev2026Response =
  | { jsonrpc: '2.0'; id: RequestId; result: Record<string, unknown> }
  | { jsonrpc: '2.0'; id: RequestId; error: { code: number; message: string; data?: unknown } };
export interface Notification {
  jsonrpc: '2.0';
  method: string;
  params: Record<string, unknown>;
}

// What the transport gives one request: cancellation, its own stream, who is at the other end.
export interface RequestIo {
  signal: AbortSignal; // aborted when the client cancels (stream closed, notifications/cancelled)
  notify(message: Notification): void; // on this request's stream, before its response
  peer: string; // fallback identity: "stdio", or the HTTP peer
  principal?: string; // who the bearer token names: an OAuth grant id, else 'static' (absent: 'static')
}

export interface Rev2026Options {
  maxAgents: number;
  handleIdleMs: number;
  env?: Record<string, string | undefined>; // stdio: the process's environment (CLAUDE_CODE_SESSION_ID)
  seenClients?: Set<string>; // the clients already logged (shared with the stdio front)
}

export class Rev2026Server {
  readonly agents: AgentTable;
  private readonly tools = new WeakMap<object, Map<string, ToolEntry>>();
  private readonly listeners = new Set<() => void>();
  private readonly calls = new Map<string, Set<AbortController>>(); // tools/call in flight, by principal
  private readonly clients: Set<string>;
  private readonly sweeper: NodeJS.Timeout;
  // Definitions depend on the flags only: built once, on a conversation that never calls.
  private readonly definitions: Tool[];
  private readonly names: string[];
  private readonly info: { name: string; version: string };

  constructor(
    private readonly runtime: ServerRuntime,
    private readonly options: Rev2026Options,
  ) {
    this.agents = new AgentTable(runtime, options.maxAgents, runtime.log);
    this.clients = options.seenClients ?? new Set();
    this.definitions = toolsFor(runtime, new Conversation(runtime, 'tools-list')).map((tool) => tool.definition);
    this.names = this.definitions.map((tool) => tool.name);
    this.info = serverInfo(runtime);
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.min(60_000, Math.floor(options.handleIdleMs / 4))));
    this.sweeper.unref();
  }

  // Forgets the agents unused for --handle-idle-ms (their commands' leases are the engine's).
  sweep(now = Date.now()): void {
    this.agents.sweep(this.options.handleIdleMs, now);
  }

  async handle(request: Rev2026Request, io: RequestIo): Promise<Rev2026Response | undefined> {
    const checked = readEnvelope(request.params);
    if (!checked.ok) return error(request.id, checked.code, checked.message, checked.data);
    const { envelope } = checked;
    noteClient(this.clients, envelope, request.method, this.runtime.log);
    switch (request.method) {
      case 'server/discover':
        return discoverResponse(this.runtime.options, request.id);
      case 'tools/list': {
        return okResult(this.info, request.id, { tools: this.definitions, ttlMs: LIST_TTL_MS, cacheScope: 'public' });
      }
      case 'tools/call':
        return this.call(request, envelope, io);
      case 'subscriptions/listen':
        return this.listen(request, io);
      default:
        return error(
          request.id,
          METHOD_NOT_FOUND,
          `Method not found: ${clipMethod(request.method)} is not served by this server in protocol ${envelope.protocolVersion} (it serves server/discover, tools/list, tools/call, subscriptions/listen)`,
        );
    }
  }

  // A revoked grant: its calls in flight are cancelled (an exec_command still in its first wait
  // kills what it started), its agents forgotten, and every command it started is killed, in
  // either era. Returns how many commands were running.
  endPrincipal(principal: string): number {
    for (const call of this.calls.get(principal) ?? []) call.abort();
    this.agents.dropPrincipal(principal);
    return this.runtime.engine.closePrincipal(principal);
  }

  // Ends every open subscriptions/listen with its completion result (shutdown).
  endSubscriptions(): void {
    for (const end of [...this.listeners]) end();
  }

  close(): void {
    clearInterval(this.sweeper);
    this.endSubscriptions();
    this.agents.close();
  }

  private async call(request: Rev2026Request, envelope: Envelope, io: RequestIo): Promise<Rev2026Response> {
    const params = request.params ?? {};
    if (typeof params.name !== 'string') return error(request.id, INVALID_PARAMS, "Invalid params: tools/call needs params.name, the tool's name as a string");
    const raw = params.arguments === undefined ? {} : params.arguments;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      return error(request.id, INVALID_PARAMS, 'Invalid params: tools/call params.arguments must be an object');
    const principal = io.principal ?? 'static';
    const { key } = agentKeyOf(envelope, io.peer, this.options.env, principal);
    const conversation = this.agents.acquire(key, principal);
    if (!conversation)
      return error(
        request.id,
        -32000,
        `Service Unavailable: ${this.agents.cap} agents are known and each has a call in flight or a command running (--max-conversations ${this.agents.cap}); retry later`,
      );
    // Cancelled by the client (io.signal), or by the revocation of its grant (endPrincipal).
    const cancel = new AbortController();
    const forward = () => cancel.abort();
    io.signal.addEventListener('abort', forward, { once: true });
    if (io.signal.aborted) cancel.abort();
    const inFlight = this.calls.get(principal) ?? new Set<AbortController>();
    this.calls.set(principal, inFlight.add(cancel));
    try {
      // An unknown tool is a protocol error in this revision (tools.mdx), not a tool result; it is
      // recorded as the agent's failed call all the same.
      if (!this.names.includes(params.name)) {
        const unknown = unknownToolError(params.name, this.names);
        this.runtime.observer?.callStarted(UNKNOWN_TOOL_LABEL);
        await conversation.invoke(unknownToolCall(params.name, raw as Record<string, unknown>), () => Promise.reject(unknown));
        this.runtime.observer?.callEnded(UNKNOWN_TOOL_LABEL, 'UNKNOWN_TOOL', 0);
        const text = `UNKNOWN_TOOL: ${unknown.message}`; // quotes the client's name: redacted like any result
        return error(request.id, INVALID_PARAMS, this.runtime.redact ? this.runtime.redact(text) : text, { code: 'UNKNOWN_TOOL' });
      }
      let byName = this.tools.get(conversation);
      if (!byName)
        this.tools.set(conversation, (byName = new Map(toolsFor(this.runtime, conversation, { leased: true }).map((tool) => [tool.definition.name, tool]))));
      const extra: CallExtra = {
        signal: cancel.signal,
        _meta: envelope.meta as CallExtra['_meta'],
        sendNotification: async (notification) =>
          io.notify({ jsonrpc: '2.0', method: notification.method, params: (notification.params ?? {}) as Record<string, unknown> }),
      };
      const result: CallToolResult = await byName.get(params.name)!.call(raw as Record<string, unknown>, extra);
      return okResult(this.info, request.id, result as unknown as Record<string, unknown>);
    } finally {
      this.agents.release(key);
      io.signal.removeEventListener('abort', forward);
      inFlight.delete(cancel);
      if (inFlight.size === 0) this.calls.delete(principal);
    }
  }

  // zodex's tool list never changes and it has no resources or prompts: the subscription is
  // acknowledged with an empty filter and stays open, silent, until cancelled or shutdown. At
  // most maxAgents (--max-conversations) are open: a newcomer ends the oldest with its result.
  private listen(request: Rev2026Request, io: RequestIo): Promise<Rev2026Response | undefined> {
    if (this.listeners.size >= this.options.maxAgents) [...this.listeners][0]?.();
    const subscription = { [META.subscriptionId]: request.id };
    io.notify({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: subscription, notifications: {} } });
    return new Promise((resolve) => {
      const end = (response: Rev2026Response | undefined) => {
        this.listeners.delete(graceful);
        io.signal.removeEventListener('abort', cancelled);
        resolve(response);
      };
      const graceful = () =>
        end({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', _meta: { ...subscription, [META.serverInfo]: this.info } } });
      const cancelled = () => end(undefined);
      if (io.signal.aborted) return cancelled();
      this.listeners.add(graceful);
      io.signal.addEventListener('abort', cancelled, { once: true });
    });
  }
}

function error(id: RequestId, code: number, message: string, data?: unknown): Rev2026Response {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

const clipMethod = (method: string) => quote(method, 80);
