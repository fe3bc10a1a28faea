// The server instructions and tool annotations a conversation announces, from the server's options.
// Codex reads only the first 512 characters of the instructions, so the essentials come first, in
// an order no path can push out: the tools and the workdir rule, the set_agent_alias nudge, then
// the first (or default) workdir, whose length the operator chose; details follow.

import type { Annotations, Mode } from './options.js';

export interface InstructionSettings {
  mode: Mode;
  startDir: string; // where zodexd was started: in Local mode, offered as the first workdir
  defaultWorkdir: string | undefined;
  bounds?: string; // one sentence: the write mode (and the sandbox, when on)
}

// Codex truncates server instructions to this many characters.
export const INSTRUCTIONS_ESSENTIAL_CHARS = 512;

export function instructionsFor(settings: InstructionSettings): string {
  const local = settings.mode === 'local';
  const fallback = settings.defaultWorkdir;
  const workdir =
    fallback !== undefined
      ? `Default workdir of exec_command: ${fallback}.`
      : local
        ? `First workdir: ${settings.startDir} (where zodexd was started; guidance, not a boundary) unless the task names another.`
        : undefined;
  return [
    'zodex remote execution tools.',
    'Use them whenever a task needs this machine.',
    fallback !== undefined
      ? 'exec_command runs a shell command (pass an absolute workdir, or omit it for the default below); write_stdin polls, types into or kills one still running;'
      : 'exec_command runs a shell command (always pass an absolute workdir); write_stdin polls, types into or kills one still running;',
    fallback !== undefined
      ? 'apply_patch edits files with a Codex-style patch (always pass an absolute workdir).'
      : 'apply_patch edits files with a Codex-style patch.',
    ...(local ? ['Call set_agent_alias early with a 2-7 word label for your task, and again when it changes.'] : []),
    ...(workdir ? [workdir] : []),
    ...(settings.bounds ? [settings.bounds] : []),
    'A command still running after yield_time_ms returns a session_handle; pass a short yield_time_ms for interactive programs.',
    'Large output goes to output_file: read it with sed -n, tail or grep.',
  ].join(' ');
}

const SEED = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const ACTS = { readOnlyHint: false, destructiveHint: true, openWorldHint: false } as const;

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
}

// all-read-only: seed 000's annotations on every tool (they describe the MCP surface). truthful:
// the tools that run commands or write files are marked as acting; set_agent_alias only labels.
export function annotationsFor(setting: Annotations, tool: string): ToolAnnotations {
  return setting === 'truthful' && tool !== 'set_agent_alias' ? ACTS : SEED;
}
