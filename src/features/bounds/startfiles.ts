// Files that hold a token value, found at start: a startup file that exports GH_TOKEN (or sources
// a file that does) is a credential store like any other, but masking it whole would take the
// user's PATH and aliases away. So each file holding a known token value gets a copy with every
// such value removed, and commands see the copy in its place (zodex-spawn binds it over the file).
// Flow: tokenValuesIn(startup files and what they source) + the values in the environments ->
// redactedCopies of every candidate file holding one -> Confinement.binds; app/ then checks, with
// a confined login shell, that no value comes back (a file read some other way).

import fs from 'node:fs';
import path from 'node:path';
import { MIN_TOKEN_CHARS, startupFiles, SYSTEM_STARTUP_FOLDER, tokenAssignments, writtenCredentials } from './stores.js';

// Files larger than this are not read (a startup file or a dotfile is a few KiB).
const MAX_FILE_BYTES = 256 * 1024;
// How far below a home the search goes: its dotfiles, and two levels of ~/.config.
const CONFIG_DEPTH = 2;

function readSmall(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function listFiles(dir: string, depth: number, into: string[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isFile()) into.push(full);
    else if (entry.isDirectory() && depth > 1) listFiles(full, depth - 1, into);
  }
}

// How deep `source FILE` chains are followed from a startup file.
const SOURCE_DEPTH = 6;

// The files a startup file sources with a literal path (`source ~/x`, `. "$HOME/x"`, `.
// ${HOME}/x`, an absolute path), relative to `home`.
export function sourcedFiles(text: string, home: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|[;&|{(]|\bthen|\bdo|\belse)\s*(?:source|\.)\s+["']?((?:~|\$HOME|\$\{HOME\})?[A-Za-z0-9_./+@%=,:-]+)["']?/gm)) {
    const raw = match[1]!;
    const expanded = raw.replace(/^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/, home);
    if (path.isAbsolute(expanded)) found.push(path.normalize(expanded));
  }
  return found;
}

// Where token values are looked for: the startup files (the homes', /etc's and /etc/profile.d's)
// and every file they source (followed SOURCE_DEPTH deep), every regular file directly in each
// home (~/.gitconfig, ~/.npmrc among them), ~/.config two levels down, and /etc/gitconfig.
export function candidateFiles(homes: readonly string[]): string[] {
  const files = new Set(startupFiles(homes));
  for (const home of homes) {
    const direct: string[] = [];
    listFiles(home, 1, direct);
    listFiles(path.join(home, '.config'), CONFIG_DEPTH, direct);
    for (const file of direct) files.add(file);
  }
  const system: string[] = ['/etc/gitconfig'];
  listFiles(SYSTEM_STARTUP_FOLDER, 1, system);
  for (const file of system) files.add(file);
  let frontier = [...files];
  for (let depth = 0; depth < SOURCE_DEPTH && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const file of frontier) {
      const text = readSmall(file);
      if (text === undefined) continue;
      const home = homes.find((candidate) => file.startsWith(`${candidate}/`)) ?? homes[0] ?? '/';
      for (const sourced of sourcedFiles(text, home)) {
        if (files.has(sourced)) continue;
        files.add(sourced);
        next.push(sourced);
      }
    }
    frontier = next;
  }
  return [...files];
}

// The token values the startup files assign literally, and the credentials any of the files holds
// in plain sight (a URL's password, git's extraheader: ~/.gitconfig is one of them).
export function tokenValuesIn(files: readonly string[]): string[] {
  const values = new Set<string>();
  for (const file of files) {
    const text = readSmall(file);
    if (text !== undefined) for (const value of [...tokenAssignments(text), ...writtenCredentials(text)]) values.add(value);
  }
  return [...values];
}

// For each file holding one of `values`, a copy without them in `folder` (0600), to be bound over
// it. `skip` leaves out files that are masked anyway.
export function redactedCopies(
  values: readonly string[],
  files: readonly string[],
  folder: string,
  skip: (file: string) => boolean,
): Array<{ source: string; target: string }> {
  const needles = [...new Set(values)].filter((value) => value.length >= MIN_TOKEN_CHARS).sort((a, b) => b.length - a.length);
  if (needles.length === 0) return [];
  const binds: Array<{ source: string; target: string }> = [];
  for (const file of files) {
    if (skip(file)) continue;
    const text = readSmall(file);
    if (text === undefined || !needles.some((needle) => text.includes(needle))) continue;
    let redacted = text;
    for (const needle of needles) redacted = redacted.split(needle).join('');
    const source = path.join(folder, `redacted-${binds.length}-${path.basename(file).replace(/[^A-Za-z0-9._-]/g, '_')}`);
    fs.writeFileSync(source, redacted, { mode: 0o600 });
    binds.push({ source, target: file });
  }
  return binds;
}
