// zodex_context (seed 002): model-visible context added to tool results in Local mode: the
// user's global Codex instructions and skills on a conversation's first result, and a workdir's
// AGENTS hint and .agents/skills catalog on the first success there. Options: options.ts.

export {
  CONFIG_FILE_NAME,
  CONTEXT_FLAG_OPTIONS,
  CONTEXT_USAGE,
  ContextConfigError,
  DEFAULT_AGENTS_MAX_BYTES,
  DEFAULT_CAPS,
  DEFAULT_DESCRIPTION_MAX_CHARS,
  DEFAULT_MAX_SKILLS,
  configFileSchema,
  contextConfigSchema,
  contextFlagsFrom,
  defaultContextOptions,
  loadContextOptions,
  readContextConfig,
  type ContextCaps,
  type ContextConfig,
  type ContextFlags,
  type ContextOptions,
  type ContextParts,
  type LoadContextInput,
} from './options.js';
export { globalContext, workdirContext, renderCatalog, GLOBAL_SKILLS_DIR, WORKDIR_SKILLS_DIR } from './render.js';
export { ConversationContext, type ContextReaders } from './tracker.js';
export { parseFrontMatter, type FrontMatterResult } from './frontmatter.js';
export { scanSkills, SKILL_HEAD_BYTES, SKILL_NAME_MAX_CHARS, type Skill, type SkillCatalog } from './skills.js';
export { INSTRUCTION_FILE_NAMES, readInstructions } from './files.js';
