// Skill catalogs: `<dir>/<name>/SKILL.md` one level deep, read from their front matter (`name`,
// `description`), sorted by name, capped. A skill without both fields, or with broken front
// matter, is skipped (and reported to the caller for diagnostics), never fatal.

import fs from 'node:fs';
import path from 'node:path';
import { readBounded } from './files.js';
import { parseFrontMatter } from './frontmatter.js';

export const SKILL_FILE_NAME = 'SKILL.md';
export const SKILL_NAME_MAX_CHARS = 64; // the Agent Skills limit on `name`
export const SKILL_HEAD_BYTES = 16 * 1024; // front matter must sit in the first 16 KiB
export const MAX_SKILL_DIRS_SCANNED = 1_000; // a huge folder is not read past this many entries

export interface Skill {
  name: string; // one line, at most SKILL_NAME_MAX_CHARS
  description: string; // one line, at most the caller's descriptionMaxChars
  file: string; // absolute path of its SKILL.md
}

export interface SkillCatalog {
  dir: string;
  skills: Skill[]; // at most maxSkills, sorted by name
  omitted: number; // valid skills beyond maxSkills
  skipped: { file: string; reason: string }[];
}

// One line, whitespace collapsed, cut to `max` code points with an ellipsis.
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const points = [...line];
  return points.length <= max
    ? line
    : points
        .slice(0, Math.max(0, max - 1))
        .join('')
        .trimEnd() + '…';
}

export function scanSkills(dir: string, limits: { maxSkills: number; descriptionMaxChars: number }): SkillCatalog | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const names = entries
    .filter((entry) => !entry.name.startsWith('.') && (entry.isDirectory() || entry.isSymbolicLink()))
    .map((entry) => entry.name)
    .sort()
    .slice(0, MAX_SKILL_DIRS_SCANNED);
  const found: Skill[] = [];
  const skipped: SkillCatalog['skipped'] = [];
  for (const name of names) {
    const file = path.join(dir, name, SKILL_FILE_NAME);
    const head = readBounded(file, SKILL_HEAD_BYTES);
    if (!head) continue; // a folder without SKILL.md is not a skill
    const parsed = parseFrontMatter(head.text);
    if (!parsed.ok) {
      skipped.push({ file, reason: parsed.reason });
      continue;
    }
    const skillName = oneLine(parsed.fields.get('name') ?? '', SKILL_NAME_MAX_CHARS);
    const description = oneLine(parsed.fields.get('description') ?? '', limits.descriptionMaxChars);
    if (!skillName || !description) {
      skipped.push({ file, reason: `front matter lacks ${skillName ? 'description' : 'name'}` });
      continue;
    }
    found.push({ name: skillName, description, file });
  }
  if (found.length === 0 && skipped.length === 0) return undefined;
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.file < b.file ? -1 : 1));
  return { dir, skills: found.slice(0, limits.maxSkills), omitted: Math.max(0, found.length - limits.maxSkills), skipped };
}
