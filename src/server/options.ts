// What every MCP server of one zodexd shares: the options app/ builds from the command line, and
// the services each conversation acts through: the engine, and what the features plug into the
// seams server/ declares (seams.ts). server/ takes these, never the argv Config, and knows no
// transport and no feature.

import type { ExecEngine } from '../exec/engine.js';
import type { Log } from '../log.js';
import type { Observer } from '../observe.js';
import type { PatchBoundary } from '../patch/index.js';
import type { SchemaLimits, Tool } from '../tools/index.js';
import type { Recorder, ResultContext } from './seams.js';

export type Mode = 'local' | 'sprite';
// all-read-only: every tool announced read-only and not destructive (seed 000's annotations, which
// describe the MCP surface; clients such as Codex then run calls without asking); truthful: the
// tools that run commands or write files say so, so clients that gate on annotations ask first.
export type Annotations = 'all-read-only' | 'truthful';

export interface ServerOptions {
  version: string;
  instructions: string; // announced at initialize (instructionsFor builds it)
  mode: Mode; // local: app/ adds set_agent_alias and zodex_context
  annotations: Annotations;
  limits: SchemaLimits; // the tools' bounds and defaults, also named in their descriptions
}

export interface ServerRuntime {
  options: ServerOptions;
  engine: ExecEngine;
  // Records agents and invocations (the history store, shared by every zodexd of this user).
  recorder: Recorder;
  serverId: string; // this zodexd, as the recorder knows it
  // apply_patch's share of the bounds (features/bounds); absent: nothing bounds a patch.
  patches?: PatchBoundary;
  // Tools served after the core's three (features': set_agent_alias in Local mode).
  extraTools?: readonly Tool[];
  // A new conversation's zodex_context (Local mode); absent: results carry none.
  newContext?(): ResultContext;
  // Variables every command of an agent gets (the publisher's socket, the Agent ID).
  commandEnv?(agentId: string): Record<string, string>;
  log: Log;
  // Hears each tool call (--ops-listen's metrics); absent: nobody does.
  observer?: Observer;
  // Replaces every known secret value in a text (src/secrets.ts); applied to every tool result.
  redact?(text: string): string;
}
