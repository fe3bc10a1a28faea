// What every MCP server of one zodexd shares: the options app/ builds from the command line, and
// the services (engine, store) each conversation acts through. server/ takes these, never the
// argv Config, and knows no transport.

import type { PatchBounds } from '../bounds/confinement.js';
import type { ContextOptions } from '../features/context/index.js';
import type { ExecEngine } from '../exec/engine.js';
import type { Log } from '../log.js';
import type { Observer } from '../observe.js';
import type { Store } from '../features/store/index.js';
import type { SchemaLimits } from '../tools/schemas.js';

export type Mode = 'local' | 'sprite';
// all-read-only: every tool announced read-only and not destructive (seed 000's annotations, which
// describe the MCP surface; clients such as Codex then run calls without asking); truthful: the
// tools that run commands or write files say so, so clients that gate on annotations ask first.
export type Annotations = 'all-read-only' | 'truthful';

export interface ServerOptions {
  version: string;
  instructions: string; // announced at initialize (instructionsFor builds it)
  mode: Mode; // local: set_agent_alias and zodex_context
  annotations: Annotations;
  limits: SchemaLimits; // the tools' bounds and defaults, also named in their descriptions
  context: ContextOptions; // what zodex_context holds (Local mode)
}

export interface ServerRuntime {
  options: ServerOptions;
  engine: ExecEngine;
  // History, agents and sessions, shared by every zodexd of this user (observability only).
  store: Store;
  serverId: string;
  // apply_patch's share of the bounds: the paths it may not touch, the sandbox's roots.
  patches: PatchBounds;
  log: Log;
  // Hears each tool call (--ops-listen's metrics); absent: nobody does.
  observer?: Observer;
  // Replaces every known secret value in a text (src/secrets.ts); applied to every tool result.
  redact?(text: string): string;
}
