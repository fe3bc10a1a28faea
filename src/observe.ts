// The seam through which the core tells an operator's metrics what happened: tool calls (the
// dispatcher, both eras), commands (the engine's start and end), sandbox refusals. The core calls
// it and knows nothing of what listens; the ops feature (src/features/ops/) implements it, and the
// composition root wires one in only with --ops-listen. Without one, NO_OBSERVER does nothing.

// How a tool call ended: 'ok', 'cancelled' (the client cancelled it), or the error code of its
// isError result (a code of the registry in errors.ts, else INTERNAL): a bounded set of values.
export type CallOutcome = string;
export type CommandEnd = 'exit' | 'timeout' | 'killed';
// The sandbox (--sandbox, --sandbox-network off): a write outside the writable roots, or a network
// connection, refused.
export type SandboxRefusal = 'write' | 'network';

export interface Observer {
  callStarted(tool: string): void;
  callEnded(tool: string, outcome: CallOutcome, seconds: number): void;
  commandStarted(): void;
  commandEnded(reason: CommandEnd): void;
  // A command's refusals, told when it ends: network, the exact count of socket() calls the sandbox
  // refused; write, how often its output showed the read-only file system's message.
  sandboxRefused(kind: SandboxRefusal, count?: number): void;
}

export const NO_OBSERVER: Observer = {
  callStarted: () => undefined,
  callEnded: () => undefined,
  commandStarted: () => undefined,
  commandEnded: () => undefined,
  sandboxRefused: () => undefined,
};
