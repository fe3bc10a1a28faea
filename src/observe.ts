// The seam through which the core tells an operator's metrics what happened: tool calls (the
// dispatcher, both eras), commands (the engine's start and end), sandbox refusals. The core calls
// it and knows nothing of what listens; the ops feature (src/features/ops/) implements it, and the
// composition root wires one in only with --ops-listen. Without one, NO_OBSERVER does nothing.

// How a tool call ended: 'ok', 'cancelled' (the client cancelled it), or the error code of its
// isError result (a code of the registry in errors.ts, else INTERNAL): a bounded set of values.
export type CallOutcome = string;
export type CommandEnd = 'exit' | 'timeout' | 'killed';
// Issue 26's opt-in sandbox: a write outside the writable roots, or a network connection, refused.
export type SandboxRefusal = 'write' | 'network';

export interface Observer {
  callStarted(tool: string): void;
  callEnded(tool: string, outcome: CallOutcome, seconds: number): void;
  commandStarted(): void;
  commandEnded(reason: CommandEnd): void;
  // Not called yet: the sandbox (issue 26) reports each refusal here once it lands.
  sandboxRefused(kind: SandboxRefusal): void;
}

export const NO_OBSERVER: Observer = {
  callStarted: () => undefined,
  callEnded: () => undefined,
  commandStarted: () => undefined,
  commandEnded: () => undefined,
  sandboxRefused: () => undefined,
};
