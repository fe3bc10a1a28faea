// What a tool is, for the server that registers it: its name, schema, description and handler,
// and how a call of it is recorded. Each tool lives in its own file (exec_command.ts ...);
// index.ts lists the core's; a feature may add its own (app/ composes them). Knows no MCP
// transport or SDK: server/tools.ts turns a Tool into one.

import type { z } from 'zod';
import { clipText, quote } from '../errors.js';
import type { ExecEngine } from '../exec/engine.js';
import type { PatchBoundary } from '../patch/index.js';
import type { ExecResult, SchemaLimits } from './schemas.js';

// What a tool body hands back: a structured exec result, or text (Codex-style for apply_patch).
export type Outcome =
  | { kind: 'exec'; result: ExecResult; sessionId: string | undefined }
  | { kind: 'text'; text: string; isError: boolean; structured?: Record<string, unknown> };

// How a call appears in the history.
export interface InvocationInfo {
  tool: string;
  workdir: string | undefined; // where it acts, as far as known before it runs
  summary: string; // the command, "poll", a patch's file list...
}

export interface CallControl {
  signal: AbortSignal;
  // Sends a progress notification, when the caller asked for them.
  progress: ((message: string) => void) | undefined;
}

// What a handler may use: the engine, its conversation's identity, the call's control.
export interface ToolContext {
  engine: ExecEngine;
  owner: string; // the conversation
  leased?: boolean; // its commands belong to their handles, killed once unused (2026-07-28 era)
  principal: string; // who opened it: an OAuth grant id, else 'static'; only it may use its handles
  agentId: () => string;
  sessionEnv: () => Readonly<Record<string, string>>; // extra variables for the command (the same object each call)
  defaultWorkdir: string | undefined;
  maxExecTimeoutMs: number;
  maxYieldMs: number; // --max-yield-ms: no call waits longer
  patches: PatchBoundary | undefined; // what apply_patch may not touch (the write mode's stores, the sandbox)
  call: CallControl;
}

export interface Tool<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: (limits: SchemaLimits) => string;
  input: (limits: SchemaLimits) => S;
  output?: () => z.ZodRawShape;
  // How an accepted call is recorded; absent: it is not an invocation (never in the timeline).
  record?: (args: z.infer<z.ZodObject<S>>, ctx: ToolContext) => InvocationInfo;
  // How a call rejected by validation is recorded (from the arguments that failed it).
  rejected: (raw: Record<string, unknown>) => InvocationInfo;
  run: (args: z.infer<z.ZodObject<S>>, ctx: ToolContext) => Promise<Outcome>;
}

// Keeps a tool's argument types while listing it beside tools of other shapes.
export function tool<S extends z.ZodRawShape>(spec: Tool<S>): Tool {
  return spec as unknown as Tool;
}

// A rejected call's record: what it named, bounded, and quoted (escaped) when it holds what
// cannot be stored as given (NUL, lone surrogates).
export function rejectedCall(tool: string, raw: Record<string, unknown>, summary: string): InvocationInfo {
  return { tool, workdir: typeof raw.workdir === 'string' ? printable(raw.workdir) : undefined, summary };
}

function printable(value: string): string {
  return /[\0\p{Cs}]/u.test(value) ? quote(value) : clipText(value, 2_000);
}

// How a call to a tool that does not exist is recorded: the name asked for, bounded.
export function unknownToolCall(name: string, raw: Record<string, unknown>): InvocationInfo {
  return { tool: printable(name), workdir: typeof raw.workdir === 'string' ? printable(raw.workdir) : undefined, summary: 'unknown tool' };
}

// A string argument of a rejected call as it is recorded, or "(no NAME)".
export const recordedField = (raw: Record<string, unknown>, name: string): string => (typeof raw[name] === 'string' ? printable(raw[name]) : `(no ${name})`);
