// A small YAML subset for SKILL.md front matter: the `---` block at the top of a file, read as a
// mapping of top-level keys to strings. Pure; never throws; anything it cannot read is skipped.
//
// Grammar (what is understood):
//   file     := BOM? '---' NL line* ('---' | '...') NL? body
//   line     := key ':' (SP value)? | '#' comment | blank | indented continuation
//   key      := plain text up to ': ' | "double" | 'single'
//   value    := plain (may continue on more-indented lines, folded with spaces)
//             | "double quoted" (YAML escapes \n \t \" \\ \xXX \uXXXX …, may span lines)
//             | 'single quoted' ('' is a quote, may span lines)
//             | ('|' | '>') chomp? indent? comment?  then a more-indented block
//   chomp    := '-' (strip) | '+' (keep); default clips to one final newline
// A key whose value is a nested mapping or sequence has no string value and is left out;
// `~` and `null` read as ''; tags (!!str) and anchors (&a) before a value are ignored.

export type FrontMatterResult = { ok: true; fields: Map<string, string>; body: string } | { ok: false; reason: string };

const FENCE = /^---[ \t]*$/;
const END_FENCE = /^(?:---|\.\.\.)[ \t]*$/;

export function parseFrontMatter(text: string): FrontMatterResult {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split(/\r\n|\r|\n/);
  if (!FENCE.test(lines[0] ?? '')) return { ok: false, reason: 'no front matter: the file does not start with a --- line' };
  const end = lines.findIndex((line, index) => index > 0 && END_FENCE.test(line));
  if (end < 0) return { ok: false, reason: 'unterminated front matter: no closing --- line' };
  return { ok: true, fields: parseMapping(lines.slice(1, end)), body: lines.slice(end + 1).join('\n') };
}

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string): boolean => line.trim() === '';

// Top-level `key: value` pairs of a block mapping; later duplicates win.
export function parseMapping(lines: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    index += 1;
    if (isBlank(line) || indentOf(line) > 0 || line.startsWith('#')) continue;
    const entry = splitKey(line);
    // The lines that belong to this key: blank or indented, up to the next top-level line.
    const start = index;
    while (index < lines.length && (isBlank(lines[index]!) || indentOf(lines[index]!) > 0)) index += 1;
    if (!entry) continue;
    const value = parseValue(entry.rest, lines.slice(start, index));
    if (value !== undefined) fields.set(entry.key, value);
  }
  return fields;
}

function splitKey(line: string): { key: string; rest: string } | undefined {
  if (line.startsWith('- ') || line === '-') return undefined; // a sequence, not a mapping
  const quote = line[0];
  if (quote === '"' || quote === "'") {
    const scanned = quote === '"' ? scanDouble(line, 0) : scanSingle(line, 0);
    if (!scanned) return undefined;
    const match = /^[ \t]*:(?:[ \t]+(.*))?$/.exec(line.slice(scanned.end + 1));
    return match ? { key: scanned.value, rest: match[1] ?? '' } : undefined;
  }
  // A plain key ends at the first ':' followed by a blank or the end of the line.
  const colon = /:(?=[ \t]|$)/.exec(line);
  if (!colon) return undefined;
  const key = line.slice(0, colon.index).trim();
  return key === '' ? undefined : { key, rest: line.slice(colon.index + 1).trim() };
}

function stripProperties(rest: string): string {
  let value = rest.trim();
  for (let guard = 0; guard < 4; guard += 1) {
    const match = /^(?:![^\s]*|&[^\s]+)(?:[ \t]+|$)/.exec(value);
    if (!match) break;
    value = value.slice(match[0].length);
  }
  return value;
}

function parseValue(rest: string, continuation: readonly string[]): string | undefined {
  const value = stripProperties(rest);
  const head = value[0];
  if (head === '|' || head === '>') return parseBlockScalar(value, continuation);
  if (head === '"' || head === "'") {
    const raw = [value, ...continuation].join('\n');
    const scanned = head === '"' ? scanDouble(raw, 0) : scanSingle(raw, 0);
    return scanned?.value;
  }
  if (head === '*') return undefined; // an alias to an anchor: not resolved
  return parsePlain(value, continuation);
}

function parsePlain(first: string, continuation: readonly string[]): string | undefined {
  const firstLine = stripComment(first).trim();
  const content = continuation.filter((line) => !/^\s*#/.test(line));
  const firstContent = content.find((line) => !isBlank(line));
  if (firstLine === '' && firstContent !== undefined && /^\s*(?:- |-$|[^\s#'"][^:]*:(?:\s|$))/.test(firstContent)) {
    return undefined; // a nested sequence or mapping
  }
  const folded = foldLines([firstLine, ...content.map((line) => stripComment(line).trim())]).trim();
  return folded === '~' || folded === 'null' || folded === 'Null' || folded === 'NULL' ? '' : folded;
}

// A comment starts at ' #' (a '#' inside a plain word is content).
function stripComment(text: string): string {
  const match = /(^|[ \t])#/.exec(text);
  return match ? text.slice(0, match.index) : text;
}

// YAML line folding for flow scalars: a single line break is a space, each further empty line
// is a newline. Lines are already trimmed.
function foldLines(lines: readonly string[]): string {
  let out = '';
  let breaks = -1; // -1: nothing yet
  for (const line of lines) {
    if (line === '') {
      if (breaks >= 0) breaks += 1;
      continue;
    }
    if (breaks === -1) out = line;
    else out += (breaks === 0 ? ' ' : '\n'.repeat(breaks)) + line;
    breaks = 0;
  }
  return out;
}

function parseBlockScalar(header: string, continuation: readonly string[]): string | undefined {
  const match = /^([|>])([+-]?)([1-9]?)([+-]?)[ \t]*(?:#.*)?$/.exec(header);
  if (!match) return undefined;
  const literal = match[1] === '|';
  const chomp = match[2] || match[4];
  let lines = [...continuation];
  const firstContent = lines.find((line) => !isBlank(line));
  // The block's indentation: explicit (relative to the key at column 0), or the first content line's.
  const indent = match[3] ? Number(match[3]) : firstContent === undefined ? 0 : indentOf(firstContent);
  const cut = lines.findIndex((line) => !isBlank(line) && indentOf(line) < indent);
  if (cut >= 0) lines = lines.slice(0, cut);
  const body = lines.map((line) => (isBlank(line) ? '' : line.slice(indent)));
  let trailing = 0;
  while (trailing < body.length && body[body.length - 1 - trailing] === '') trailing += 1;
  const content = body.slice(0, body.length - trailing);
  let text = literal ? content.join('\n') : foldBlock(content);
  if (content.length === 0) return chomp === '+' ? '\n'.repeat(trailing) : '';
  if (chomp === '+') text += '\n'.repeat(trailing + 1);
  else if (chomp !== '-') text += '\n';
  return text;
}

// Folded block: lines join with a space; empty lines are newlines; lines indented further than
// the block (and the breaks around them) are kept as they are.
function foldBlock(lines: readonly string[]): string {
  let out = '';
  let previous: 'none' | 'text' | 'more' = 'none';
  let empties = 0;
  for (const line of lines) {
    if (line === '') {
      empties += 1;
      continue;
    }
    const more = /^[ \t]/.test(line);
    if (previous === 'none') out += '\n'.repeat(empties);
    else if (previous === 'text' && !more) out += empties === 0 ? ' ' : '\n'.repeat(empties);
    else out += '\n'.repeat(empties + 1);
    out += line;
    previous = more ? 'more' : 'text';
    empties = 0;
  }
  return out;
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_ESCAPES: Record<string, number> = { x: 2, u: 4, U: 8 };

// A double-quoted scalar starting at text[start] === '"'; `end` is the closing quote's index.
function scanDouble(text: string, start: number): { value: string; end: number } | undefined {
  let out = '';
  let kept = 0; // out[0, kept) came from escapes or text: folding may not trim it
  let index = start + 1;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') return { value: out, end: index };
    if (char === '\\') {
      const next = text[index + 1];
      if (next === undefined) return undefined;
      if (next === '\n') {
        // escaped line break: joins without a space, leading blanks of the next line dropped
        index += 2;
        while (text[index] === ' ' || text[index] === '\t') index += 1;
        continue;
      }
      const width = HEX_ESCAPES[next];
      if (width !== undefined) {
        const hex = text.slice(index + 2, index + 2 + width);
        const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === width ? Number.parseInt(hex, 16) : NaN;
        if (Number.isNaN(code) || code > 0x10ffff) {
          out += '\\' + next; // tolerated: kept as written
          index += 2;
          continue;
        }
        out += String.fromCodePoint(code);
        kept = out.length;
        index += 2 + width;
        continue;
      }
      out += ESCAPES[next] ?? '\\' + next;
      kept = out.length;
      index += 2;
      continue;
    }
    if (char === '\n') {
      const folded = foldBreak(text, index, out, kept);
      out = folded.out;
      kept = out.length;
      index = folded.index;
      continue;
    }
    out += char;
    if (char !== ' ' && char !== '\t') kept = out.length;
    index += 1;
  }
  return undefined;
}

// A single-quoted scalar starting at text[start] === "'".
function scanSingle(text: string, start: number): { value: string; end: number } | undefined {
  let out = '';
  let index = start + 1;
  while (index < text.length) {
    const char = text[index]!;
    if (char === "'") {
      if (text[index + 1] === "'") {
        out += "'";
        index += 2;
        continue;
      }
      return { value: out, end: index };
    }
    if (char === '\n') {
      const folded = foldBreak(text, index, out);
      out = folded.out;
      index = folded.index;
      continue;
    }
    out += char;
    index += 1;
  }
  return undefined;
}

// Folding inside a quoted scalar at a raw line break: trailing blanks before it and leading
// blanks after it go; one break is a space, n breaks are n-1 newlines.
function foldBreak(text: string, index: number, out: string, kept = 0): { out: string; index: number } {
  let trimmed = out.slice(0, kept) + out.slice(kept).replace(/[ \t]+$/, '');
  let breaks = 0;
  let position = index;
  while (position < text.length) {
    if (text[position] === '\n') {
      breaks += 1;
      position += 1;
    } else if (text[position] === ' ' || text[position] === '\t') position += 1;
    else break;
  }
  trimmed += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
  return { out: trimmed, index: position };
}
