// Where zodex_context's switches and caps come from: flags > the config file > defaults (and
// for the Codex home: --codex-home > config > $CODEX_HOME > ~/.codex). The config file is JSON,
// validated with zod; a bad file is a ContextConfigError naming the file, the key and the fix.
//
// Config file (--config FILE > $ZODEX_CONFIG > <stateDir>/config.json; a missing default file is
// fine). It has one section, `context`; an unknown key anywhere is an error naming it.
//   { "context": {
//       "global": true,                  // first result of a conversation      (--global-context on|off)
//       "workdir": true,                 // first success in each workdir       (--workdir-context on|off)
//       "globalInstructions": true,      // $CODEX_HOME/AGENTS.override.md | AGENTS.md
//       "globalSkills": true,            // $CODEX_HOME/skills/*/SKILL.md
//       "workdirInstructionsHint": true, // "<workdir> has AGENTS.md: read …"
//       "workdirSkills": true,           // <workdir>/.agents/skills/*/SKILL.md
//       "codexHome": "~/.codex",         // absolute or ~/…                     (--codex-home DIR)
//       "agentsMaxBytes": 32768,         // 0 … 1 MiB
//       "maxSkills": 50,                 // 0 … 500, per catalog
//       "descriptionMaxChars": 300 } }   // 16 … 4096

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { nearestName, quote, ZodexError } from '../../errors.js';

export const CONFIG_FILE_NAME = 'config.json'; // default: <stateDir>/config.json
export const DEFAULT_AGENTS_MAX_BYTES = 32 * 1024; // as Codex's project_doc_max_bytes
export const DEFAULT_MAX_SKILLS = 50; // per catalog (global, and each workdir)
export const DEFAULT_DESCRIPTION_MAX_CHARS = 300; // per skill, one line
export const MAX_AGENTS_MAX_BYTES = 1024 * 1024;
export const MAX_MAX_SKILLS = 500;
export const MIN_DESCRIPTION_MAX_CHARS = 16;
export const MAX_DESCRIPTION_MAX_CHARS = 4_096;

export interface ContextCaps {
  agentsMaxBytes: number; // bytes of AGENTS text quoted; the rest is named in a [truncated: …] note
  maxSkills: number; // skills listed per catalog; the rest are counted
  descriptionMaxChars: number; // characters of each skill description
}

export interface ContextParts {
  globalInstructions: boolean; // $CODEX_HOME/AGENTS.override.md or AGENTS.md
  globalSkills: boolean; // $CODEX_HOME/skills/*/SKILL.md
  workdirInstructionsHint: boolean; // "<workdir> has AGENTS.md …"
  workdirSkills: boolean; // <workdir>/.agents/skills/*/SKILL.md
}

export interface ContextOptions {
  codexHome: string;
  globalEnabled: boolean; // the first result of a conversation
  workdirEnabled: boolean; // the first successful invocation in a workdir
  parts: ContextParts;
  caps: ContextCaps;
}

export const DEFAULT_CAPS: ContextCaps = {
  agentsMaxBytes: DEFAULT_AGENTS_MAX_BYTES,
  maxSkills: DEFAULT_MAX_SKILLS,
  descriptionMaxChars: DEFAULT_DESCRIPTION_MAX_CHARS,
};

export class ContextConfigError extends ZodexError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
    this.name = 'ContextConfigError';
  }
}

// The flags zodexd adds to its parseArgs options (values are strings: on|off, paths).
export const CONTEXT_FLAG_OPTIONS = {
  'global-context': { type: 'string' },
  'workdir-context': { type: 'string' },
  'codex-home': { type: 'string' },
  config: { type: 'string' },
} satisfies ParseArgsConfig['options'];

export const CONTEXT_USAGE = `Context (zodex_context on exec_command / write_stdin results):
  --global-context on|off     global AGENTS instructions and skill catalog on a conversation's
                              first result (default on)               [config context.global]
  --workdir-context on|off    AGENTS.md hint and .agents/skills catalog on the first success
                              in each workdir (default on)            [config context.workdir]
  --codex-home DIR            where AGENTS.md and skills/ live (default $CODEX_HOME, else ~/.codex)
  --config FILE               JSON settings (default <state dir>/${CONFIG_FILE_NAME})  [env ZODEX_CONFIG]
`;

export interface ContextFlags {
  globalContext?: string;
  workdirContext?: string;
  codexHome?: string;
  config?: string;
}

// Picks the context flags out of parseArgs values.
export function contextFlagsFrom(values: Record<string, unknown>): ContextFlags {
  const pick = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  return { globalContext: pick('global-context'), workdirContext: pick('workdir-context'), codexHome: pick('codex-home'), config: pick('config') };
}

const pathSetting = z
  .string()
  .min(1, 'must be a non-empty path')
  .refine((value) => value.startsWith('~') || path.isAbsolute(value), 'must be an absolute path (or start with ~/)');

export const contextConfigSchema = z.strictObject({
  global: z.boolean().optional(),
  workdir: z.boolean().optional(),
  globalInstructions: z.boolean().optional(),
  globalSkills: z.boolean().optional(),
  workdirInstructionsHint: z.boolean().optional(),
  workdirSkills: z.boolean().optional(),
  codexHome: pathSetting.optional(),
  agentsMaxBytes: z.number().int().min(0).max(MAX_AGENTS_MAX_BYTES).optional(),
  maxSkills: z.number().int().min(0).max(MAX_MAX_SKILLS).optional(),
  descriptionMaxChars: z.number().int().min(MIN_DESCRIPTION_MAX_CHARS).max(MAX_DESCRIPTION_MAX_CHARS).optional(),
});

// The sections of the config file: `context` is the only one today. Any other key is an error, so
// that a typo ("contxt", "globl") is told, not silently left at its default.
export const configFileSchema = z.strictObject({ context: contextConfigSchema.optional() });

export type ContextConfig = z.infer<typeof contextConfigSchema>;

function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  return path.resolve(value);
}

// The `context` section of a config file; {} when the default file does not exist.
export function readContextConfig(file: string, required: boolean): ContextConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !required) return {};
    throw new ContextConfigError(`config file ${file} cannot be read (${code ?? String(error)}); fix the path or its permissions`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ContextConfigError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = configFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const where = issue.path.length ? issue.path.join('.') : '(top level)';
      if (issue.code !== 'unrecognized_keys') return `${where}: ${issue.message}`;
      const known = Object.keys((issue.path.length ? contextConfigSchema : configFileSchema).shape);
      const keys = issue.keys.map((key) => {
        const near = nearestName(key, known);
        return `${quote(key, 80)}${near ? ` (did you mean "${near}"?)` : ''}`;
      });
      return `${where}: unknown key${keys.length > 1 ? 's' : ''} ${keys.join(', ')}; the known keys are ${known.join(', ')}`;
    });
    throw new ContextConfigError(`config file ${file} is invalid: ${problems.join('; ')}`);
  }
  return parsed.data.context ?? {};
}

const SWITCH_VALUES: Record<string, boolean> = { on: true, off: false, true: true, false: false, yes: true, no: false, '1': true, '0': false };

function parseSwitch(flag: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const parsed = SWITCH_VALUES[value.trim().toLowerCase()];
  if (parsed === undefined) throw new ContextConfigError(`${flag} ${JSON.stringify(value)} is not on or off; write e.g. ${flag} off`);
  return parsed;
}

export interface LoadContextInput {
  stateDir: string;
  flags?: ContextFlags;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
}

// All defaults applied in one place. Throws ContextConfigError on a bad flag or config file.
export function loadContextOptions(input: LoadContextInput): ContextOptions {
  const env = input.env ?? process.env;
  const home = input.homeDir ?? os.homedir();
  const flags = input.flags ?? {};
  const explicitFile = flags.config ?? (env.ZODEX_CONFIG || undefined);
  const configFile = explicitFile ? expandHome(explicitFile, home) : path.join(input.stateDir, CONFIG_FILE_NAME);
  const config = readContextConfig(configFile, explicitFile !== undefined);

  if (flags.codexHome !== undefined && !flags.codexHome.trim())
    throw new ContextConfigError('--codex-home needs a directory; write e.g. --codex-home ~/.codex');
  const codexHomeSetting = flags.codexHome ?? config.codexHome ?? (env.CODEX_HOME || undefined) ?? path.join(home, '.codex');
  return {
    codexHome: expandHome(codexHomeSetting, home),
    globalEnabled: parseSwitch('--global-context', flags.globalContext) ?? config.global ?? true,
    workdirEnabled: parseSwitch('--workdir-context', flags.workdirContext) ?? config.workdir ?? true,
    parts: {
      globalInstructions: config.globalInstructions ?? true,
      globalSkills: config.globalSkills ?? true,
      workdirInstructionsHint: config.workdirInstructionsHint ?? true,
      workdirSkills: config.workdirSkills ?? true,
    },
    caps: {
      agentsMaxBytes: config.agentsMaxBytes ?? DEFAULT_CAPS.agentsMaxBytes,
      maxSkills: config.maxSkills ?? DEFAULT_CAPS.maxSkills,
      descriptionMaxChars: config.descriptionMaxChars ?? DEFAULT_CAPS.descriptionMaxChars,
    },
  };
}

// Defaults without reading anything: for tests and callers that build options themselves.
export function defaultContextOptions(codexHome: string): ContextOptions {
  return {
    codexHome,
    globalEnabled: true,
    workdirEnabled: true,
    parts: { globalInstructions: true, globalSkills: true, workdirInstructionsHint: true, workdirSkills: true },
    caps: { ...DEFAULT_CAPS },
  };
}
