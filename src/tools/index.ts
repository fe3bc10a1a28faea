// The tools, in the order tools/list shows them; server/tools.ts registers from this list
// (set_agent_alias in --mode local only).

import { applyPatchTool } from './apply_patch.js';
import { execCommandTool } from './exec_command.js';
import { setAgentAliasTool } from '../features/liveboard/set_agent_alias.js';
import type { Tool } from './tool.js';
import { writeStdinTool } from './write_stdin.js';

export const TOOLS: readonly Tool[] = [execCommandTool, writeStdinTool, applyPatchTool, setAgentAliasTool];

export type { CallControl, InvocationInfo, Outcome, Tool, ToolContext, ToolName } from './tool.js';
export { unknownToolCall } from './tool.js';
export type { SchemaLimits, ExecResult } from './schemas.js';
