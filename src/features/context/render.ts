// The zodex_context texts: global (Codex home instructions + skill catalog) for a conversation's
// first result, workdir (AGENTS hint + .agents/skills catalog) for the first success in a
// workdir. Each part is read fresh, bounded by the caps, and omitted when empty or switched off.

import path from 'node:path';
import { instructionFilesIn, readInstructions } from './files.js';
import type { ContextOptions } from './options.js';
import { scanSkills, type SkillCatalog } from './skills.js';

export const WORKDIR_SKILLS_DIR = path.join('.agents', 'skills');
export const GLOBAL_SKILLS_DIR = 'skills';

export function renderCatalog(catalog: SkillCatalog): string | undefined {
  if (catalog.skills.length === 0 && catalog.omitted === 0) return undefined;
  const lines = [`Skills in ${catalog.dir} (each is a SKILL.md with instructions; open it when a task matches):`];
  for (const skill of catalog.skills) lines.push(`- ${skill.name}: ${skill.description} (file: ${skill.file})`);
  if (catalog.omitted > 0) lines.push(`- [${catalog.omitted} more skills in ${catalog.dir} not listed]`);
  return lines.join('\n');
}

// Text for the first result of a conversation, or undefined when there is nothing to say.
export function globalContext(options: ContextOptions): string | undefined {
  if (!options.globalEnabled) return undefined;
  const parts: string[] = [];
  if (options.parts.globalInstructions) {
    const instructions = readInstructions(options.codexHome, options.caps.agentsMaxBytes);
    if (instructions) {
      let text = `Global instructions (${instructions.path}):\n${instructions.text.replace(/\s+$/, '')}`;
      if (instructions.omittedBytes > 0) text += `\n[truncated: ${instructions.omittedBytes} more bytes in ${instructions.path}]`;
      parts.push(text);
    }
  }
  if (options.parts.globalSkills) {
    const catalog = scanSkills(path.join(options.codexHome, GLOBAL_SKILLS_DIR), options.caps);
    const text = catalog && renderCatalog(catalog);
    if (text) parts.push(text);
  }
  return parts.length ? parts.join('\n\n') : undefined;
}

// Text for the first successful invocation in `workdir`, or undefined.
export function workdirContext(workdir: string, options: ContextOptions): string | undefined {
  if (!options.workdirEnabled) return undefined;
  const parts: string[] = [];
  if (options.parts.workdirInstructionsHint) {
    const files = instructionFilesIn(workdir);
    const first = files[0];
    if (first) {
      const shadowed = files.length > 1 ? ` (it takes precedence over the ${files[1]} beside it)` : '';
      parts.push(`${workdir} has ${first}${shadowed}: read ${path.join(workdir, first)} for project instructions before working here.`);
    }
  }
  if (options.parts.workdirSkills) {
    const catalog = scanSkills(path.join(workdir, WORKDIR_SKILLS_DIR), options.caps);
    const text = catalog && renderCatalog(catalog);
    if (text) parts.push(text);
  }
  return parts.length ? parts.join('\n') : undefined;
}
