// The code of src/ as text, for the tests that scan what zodex says and reads (no spec file names
// in user-facing strings; every environment variable it reads documented): its files and each
// line without its comment.

import fs from 'node:fs';
import path from 'node:path';

export function sourceFiles(dir: string, name: RegExp = /\.ts$/): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full, name) : name.test(entry.name) ? [full] : [];
  });
}

// A line without its comment: whole-line comments dropped, a trailing " // …" cut (URLs keep
// their "://", which has no space before it).
export function code(line: string): string {
  return /^\s*(\/\/|\*|\/\*)/.test(line) ? '' : line.replace(/\s\/\/\s.*$/, '');
}
