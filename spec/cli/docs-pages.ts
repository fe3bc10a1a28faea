// The pages a reader gets: README.md and every Markdown file under docs/ (topic pages, decision
// records, research notes), each with its path from the repository root, for the tests that hold
// the docs to the code (commands, links, flags, error codes).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Page {
  file: string; // from the repository root, '/'-separated
  text: string;
}

function markdownUnder(dir: string): string[] {
  return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    return entry.isDirectory() ? markdownUnder(file) : entry.name.endsWith('.md') ? [file] : [];
  });
}

export function docPages(): Page[] {
  return ['README.md', ...markdownUnder('docs').sort()].map((file) => ({ file, text: fs.readFileSync(path.join(REPO, file), 'utf8') }));
}
