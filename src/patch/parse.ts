// Patch text -> a list of file operations (pure; nothing here touches the disk).
// Flow: split lines -> strip the optional heredoc wrapper -> check the Begin/End markers ->
// read hunks one by one (Add, Delete, Update with its chunks) -> PatchOp[], or PatchParseError.
//
// Grammar (Codex's apply-patch format, with the leniency Codex has and two extensions):
//
//   patch    := [heredoc-open] "*** Begin Patch" hunk+ "*** End Patch" [heredoc-close]
//   hunk     := add | delete | update
//   add      := "*** Add File: " path ("+" text)*
//   delete   := "*** Delete File: " path
//   update   := "*** Update File: " path ["*** Move to: " path] chunk+
//   chunk    := header* line+ ["*** End of File"]   -- header* may be empty for the first chunk only
//   header   := "@@" | "@@ " context                -- stacked headers narrow the search step by step
//   line     := " " text | "-" text | "+" text | ""  -- "" (an empty line) is an empty context line
//   heredoc  := "<<EOF" | "<<'EOF'" | "<<\"EOF\"" ... a last line ending in "EOF"
//
// Leniency: every line may end in LF or CRLF; markers, hunk headers and "*** End of File" are
// recognised after trimming surrounding whitespace, even inside a chunk (so a file line that reads
// exactly like one cannot be context), "*** Move to:" likewise but only right after its Update
// header; blank lines before the first and after the last marker, between hunks and between
// chunks are skipped (an empty line directly before an "@@", a "***" line or the end of the hunk
// separates chunks; elsewhere in a chunk it is context).
// Stacked headers are consecutive "@@" lines; a bare "@@" among them adds nothing.
// Line numbers in errors are 1-based lines of the text as given (heredoc lines included).

import { ZodexError, clipText } from '../errors.js';

export interface PatchChunkLine {
  kind: ' ' | '-' | '+';
  text: string;
}

export interface PatchChunk {
  /** The texts of the `@@ context` headers, outermost first; empty for a bare `@@` or none. */
  contexts: string[];
  lines: PatchChunkLine[];
  endOfFile: boolean;
  /** 1-based patch line of the chunk's first header or line. */
  line: number;
}

export type PatchOp =
  | { kind: 'add'; path: string; line: number; contents: string }
  | { kind: 'delete'; path: string; line: number }
  | { kind: 'update'; path: string; line: number; movePath: string | undefined; chunks: PatchChunk[] };

export class PatchParseError extends ZodexError {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super('PATCH_PARSE', `Invalid patch at line ${line}: ${detail} Nothing was applied.`);
    this.name = 'PatchParseError';
  }
}

const BEGIN_PATCH = '*** Begin Patch';
const END_PATCH = '*** End Patch';
const END_OF_FILE = '*** End of File';
const HEREDOC_OPENERS = new Set(['<<EOF', "<<'EOF'", '<<"EOF"']);
const HUNK_HEADER = /^\*\*\* (Add|Delete|Update) File:(.*)$/;
const MOVE_TO = /^\*\*\* Move to:(.*)$/;
const CR = 13;
const PLUS = 43;
const VALID_HUNK_HEADERS = "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'.";

// One line of the patch text: its 0-based index (-1 when found from the end: not counted), where
// it starts, where the next one starts, and its text without the line break (LF, or CRLF).
interface Line {
  index: number;
  start: number;
  next: number;
  text: string;
}

function lineAt(text: string, start: number, index: number): Line {
  const lf = text.indexOf('\n', start);
  const end = lf < 0 ? text.length : lf;
  const cr = lf > start && text.charCodeAt(lf - 1) === CR;
  return { index, start, next: end + 1, text: text.slice(start, cr ? end - 1 : end) };
}

function lineBefore(text: string, line: Line): Line | null {
  if (line.start === 0) return null;
  const lf = line.start - 1;
  return lineAt(text, lf === 0 ? 0 : text.lastIndexOf('\n', lf - 1) + 1, -1);
}

// A forward cursor over the lines between the Begin and End markers; the text is never split as a
// whole, so a 10 MiB Add File costs one slice and one replace rather than a string per line.
class Reader {
  current: Line;
  constructor(
    private readonly text: string,
    first: Line,
    private readonly end: number, // offset of the End Patch line
  ) {
    this.current = first;
  }
  get done(): boolean {
    return this.current.start >= this.end;
  }
  get line(): string {
    return this.done ? '' : this.current.text;
  }
  get lineNumber(): number {
    return this.current.index + 1;
  }
  advance(): void {
    this.current = lineAt(this.text, this.current.next, this.current.index + 1);
  }
  skipBlank(): void {
    while (!this.done && this.line.trim() === '') this.advance();
  }
  // Consumes the lines that start with '+' and returns them joined with LF, each without its '+'.
  takeAdded(): string {
    const { text } = this;
    const from = this.current.start;
    let at = from; // the End Patch line follows, so every '+' line ends with a line break
    let count = 0;
    for (; at < this.end && text.charCodeAt(at) === PLUS; count++) at = text.indexOf('\n', at) + 1;
    if (count === 0) return '';
    this.current = lineAt(text, at, this.current.index + count);
    const block = text.slice(from + 1, at);
    return (block.includes('\r') ? block.replaceAll('\r\n', '\n') : block).replaceAll('\n+', '\n');
  }
}

export function parsePatch(text: string): PatchOp[] {
  let first: Line | null = lineAt(text, 0, 0);
  while (first && first.text.trim() === '') first = first.next > text.length ? null : lineAt(text, first.next, first.index + 1);
  let last: Line | null = lineAt(text, text.lastIndexOf('\n') + 1, -1);
  while (last && last.text.trim() === '') last = lineBefore(text, last);
  if (!first || !last) throw new PatchParseError(1, "The patch is empty; it must start with '*** Begin Patch'.");
  const fourLinesOrMore = countLineBreaks(text, first.start, last.start, 3) === 3;
  if (HEREDOC_OPENERS.has(first.text.trim()) && last.text.trim().endsWith('EOF') && fourLinesOrMore) {
    first = lineAt(text, first.next, first.index + 1);
    last = lineBefore(text, last) as Line;
  }
  if (first.text.trim() !== BEGIN_PATCH) {
    throw new PatchParseError(first.index + 1, "The first line of the patch must be '*** Begin Patch'.");
  }
  if (last.start === first.start || last.text.trim() !== END_PATCH) {
    throw new PatchParseError(lineNumberOf(text, last), "The last line of the patch must be '*** End Patch'.");
  }

  const reader = new Reader(text, lineAt(text, first.next, first.index + 1), last.start);
  const ops: PatchOp[] = [];
  for (reader.skipBlank(); !reader.done; reader.skipBlank()) {
    ops.push(parseHunk(reader, ops[ops.length - 1]));
  }
  if (ops.length === 0) {
    throw new PatchParseError(
      lineNumberOf(text, last),
      "The patch contains no file operations; add at least one '*** Add File:', '*** Delete File:' or '*** Update File:' section.",
    );
  }
  return ops;
}

// Line breaks in text[from, before), counting no further than `max`.
function countLineBreaks(text: string, from: number, before: number, max = Infinity): number {
  let count = 0;
  for (let lf = text.indexOf('\n', from); lf >= 0 && lf < before && count < max; lf = text.indexOf('\n', lf + 1)) count++;
  return count;
}

// The 1-based line number of a line found from the end.
function lineNumberOf(text: string, line: Line): number {
  return countLineBreaks(text, 0, line.start) + 1;
}

function parseHunk(reader: Reader, previous: PatchOp | undefined): PatchOp {
  const line = reader.lineNumber;
  const header = reader.line.trim();
  const match = HUNK_HEADER.exec(header);
  if (!match) {
    const hint = previous?.kind === 'add' ? " (every line of an '*** Add File:' section must start with '+')" : '';
    throw new PatchParseError(line, `'${clipText(header)}' is not a valid hunk header${hint}. ${VALID_HUNK_HEADERS}`);
  }
  const path = requirePath(match[2] ?? '', line, header);
  reader.advance();
  if (match[1] === 'Delete') return { kind: 'delete', path, line };
  if (match[1] === 'Add') return { kind: 'add', path, line, contents: reader.takeAdded() };

  const move = MOVE_TO.exec(reader.line.trim());
  let movePath: string | undefined;
  if (move) {
    movePath = requirePath(move[1] ?? '', reader.lineNumber, reader.line.trim());
    reader.advance();
  }
  const chunks: PatchChunk[] = [];
  for (reader.skipBlank(); !reader.done && !reader.line.trim().startsWith('***'); reader.skipBlank()) {
    chunks.push(parseChunk(reader, chunks.length === 0));
  }
  if (chunks.length === 0) {
    throw new PatchParseError(line, `Update file hunk for path '${clipText(path)}' is empty; it needs at least one chunk ('@@' then ' ', '-' or '+' lines).`);
  }
  return { kind: 'update', path, line, movePath, chunks };
}

function requirePath(raw: string, line: number, header: string): string {
  const path = raw.trim();
  if (path === '') throw new PatchParseError(line, `'${clipText(header)}' has an empty path; write the file's path after the colon.`);
  if (path.includes('\0'))
    throw new PatchParseError(line, `the path in '${clipText(header.replace(/\0/g, '\\0'))}' holds a NUL character, which no file name can carry; remove it.`);
  return path;
}

function parseChunk(reader: Reader, isFirst: boolean): PatchChunk {
  const line = reader.lineNumber;
  const contexts: string[] = [];
  let sawHeader = false;
  while (!reader.done && reader.line.startsWith('@@')) {
    const header = reader.line;
    if (header.trimEnd() !== '@@' && !header.startsWith('@@ ')) {
      throw new PatchParseError(
        reader.lineNumber,
        `'${clipText(header)}' is not a valid chunk header; write '@@' alone or '@@ ' followed by a line of the file.`,
      );
    }
    const context = header.slice(3).trimEnd(); // Codex drops a header's trailing whitespace
    if (context.trim() !== '') contexts.push(context);
    sawHeader = true;
    reader.advance();
  }
  if (!sawHeader && !isFirst) throw unexpectedLineError(reader);

  const lines: PatchChunkLine[] = [];
  let trailingBlank = 0; // raw empty lines at the end of `lines`, dropped if they end the chunk
  let endOfFile = false;
  for (; !reader.done; reader.advance()) {
    const text = reader.line;
    if (HUNK_HEADER.test(text.trim())) break;
    if (text.trim() === END_OF_FILE) {
      if (lines.length === 0) break;
      endOfFile = true;
      trailingBlank = 0;
      reader.advance();
      break;
    }
    const kind = text === '' ? ' ' : text[0];
    if (kind !== ' ' && kind !== '-' && kind !== '+') break;
    lines.push({ kind, text: text.slice(1) });
    trailingBlank = text === '' ? trailingBlank + 1 : 0;
  }
  lines.length -= trailingBlank;
  if (lines.length === 0) throw emptyChunkError(reader);
  return { contexts, lines, endOfFile, line };
}

function unexpectedLineError(reader: Reader): PatchParseError {
  return new PatchParseError(
    reader.lineNumber,
    `Unexpected line found in update hunk: '${clipText(reader.line)}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line); a new chunk starts with '@@'.`,
  );
}

function emptyChunkError(reader: Reader): PatchParseError {
  const found = reader.line.trim();
  if (!reader.done && !found.startsWith('***') && !found.startsWith('@@')) return unexpectedLineError(reader);
  return new PatchParseError(
    reader.lineNumber,
    `Update hunk does not contain any lines: after '@@' come ' ' (context), '-' (removed) or '+' (added) lines, found ${reader.done ? 'the end of the patch' : `'${clipText(found)}'`}.`,
  );
}
