// The seams server/ declares for the optional features, which implement them; app/ wires each
// into the ServerRuntime (options.ts): where agents and invocations are recorded (the history
// store), what a result adds for the model (zodex_context), and what every command of an agent
// gets in its environment (the publisher's socket and the Agent ID). Absent: nothing is added.

// An invocation as it starts: the command, or a patch summary (the store clips it).
export interface InvocationStart {
  agentId: string;
  tool: string;
  workdir?: string;
  summary: string;
}

export interface InvocationFinish {
  resultSummary: string;
  isError: boolean;
  exitCode?: number;
  terminationReason?: string;
  sessionId?: string; // the opaque session id created or touched, never the session handle
  outputFile?: string; // the spill file path; output is never recorded
}

// Where agents and their invocations are recorded (features/store): observability only, so a
// recorder never throws into a call.
export interface Recorder {
  registerAgent(serverId: string): string; // a new Agent ID
  endAgent(agentId: string): void;
  startInvocation(row: InvocationStart): number; // -1 when nothing was recorded
  finishInvocation(id: number, row: InvocationFinish): void;
}

// One conversation's zodex_context (features/context): what to append to a result, once each.
// `workdir` is where the call acted; `succeeded` is false for an error result.
export interface ResultContext {
  forResult(result: { workdir?: string; succeeded: boolean }): string | undefined;
}
