// The core's tools, in the order tools/list shows them; server/tools.ts registers from this list
// and then the runtime's extra tools (a feature's: set_agent_alias in --mode local, app/tools.ts).

import { applyPatchTool } from './apply_patch.js';
import { execCommandTool } from './exec_command.js';
import type { Tool } from './tool.js';
import { writeStdinTool } from './write_stdin.js';

export const TOOLS: readonly Tool[] = [execCommandTool, writeStdinTool, applyPatchTool];

export type { CallControl, InvocationInfo, Outcome, Tool, ToolContext } from './tool.js';
export { unknownToolCall } from './tool.js';
export type { SchemaLimits, ExecResult } from './schemas.js';
