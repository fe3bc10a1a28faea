// What each patch operation will do to the disk, decided before anything is written.
// Flow: planOp probes and reads its files through an injected FileReader -> for an Update,
// updateLines locates every chunk in the ORIGINAL lines (rules below) and rebuilds them ->
// Steps (write / remove) for apply.ts, or an OpFailure with a stable code and a reason.
//
// Locating the chunks of one Update:
//  1. Forward pass, as Codex: chunks are taken in patch order and each is searched from the end
//     of the previous chunk's region (the first from the top; a pure addition without header does
//     not move that point). Within a chunk, each `@@` header is the first match after the previous
//     one (stacked headers narrow step by step), then the old lines (context and '-') are searched
//     after the last header.
//  2. When is a forward match ambiguous? A chunk's candidate regions are computed in its range:
//     - the FIRST chunk, and ANY chunk without an `@@` header: every place its old lines match in
//       the range is a candidate (with a header, the first chunk's candidates are the regions
//       reached from every match of its first header: "@@ def m" that occurs in two classes is
//       ambiguous, unless the old lines follow only one of them);
//     - a LATER chunk WITH a header: the first match forward (Codex), not a candidate list; the
//       previous chunk plus the header anchor it.
//     More than one candidate is AMBIGUOUS_CONTEXT, naming the chunk and every candidate line.
//  3. Out of order: when some chunk is not found forward, every chunk is located again in the
//     whole file with candidate lists (rule 2, first-chunk form). Accepted only when each chunk has
//     exactly one candidate and no two regions overlap; otherwise CONTEXT_NOT_FOUND (a chunk found
//     nowhere), AMBIGUOUS_CONTEXT, or OVERLAPPING_CHUNKS, in that order of precedence.
//  Every search tries the match levels in order (match.ts) and stops at the first level with any
//  match in its range: ambiguity at one level is an error, never a fall-through to the next.
//  Pure additions (a chunk of only '+' lines) go at the end of the file, as Codex puts them; its
//  `@@` headers must still be found and move the search point past them. `*** End of File`
//  anchors the old lines to the file's last lines.
//  A chunk not found whose last old line (context or '-') is empty is tried again as Codex does:
//  the model wrote the file's final newline as a line, so that line leaves the old lines and,
//  when the last new line (context or '+') is empty too, that one leaves the new lines. If no old
//  line is left, the new lines go in at the search point.
// Rebuilding: context lines keep the file's own text and line ending (a fuzzy match never rewrites
// them); new lines take the file's first line ending (lines.ts), and the file then ends in one.

import path from 'node:path';
import { clipText, type PatchFailureCode } from '../errors.js';
import { BoundsDenied } from './port.js';
import { type FileLines, joinLines, splitLines } from './lines.js';
import { LineIndex } from './match.js';
import type { PatchChunk, PatchChunkLine, PatchOp } from './parse.js';

// Why one file operation failed: codes registered (with their meanings) in errors.ts.
export type FailureCode = PatchFailureCode;

export type OpName = 'add' | 'delete' | 'update' | 'move';

export interface OpFailure {
  op: OpName;
  path: string;
  code: FailureCode;
  reason: string;
}

export interface ChangedFile {
  kind: 'A' | 'M' | 'D';
  path: string;
  /** For a move: the source path as written in the patch. */
  movedFrom?: string;
}

export interface FileProbe {
  kind: 'file' | 'missing' | 'directory' | 'other';
  /** The path with symlinks resolved (the path itself when missing): where a rewrite goes. */
  realPath: string;
  mode: number;
}

export interface FileReader {
  probe(absPath: string): Promise<FileProbe>;
  read(realPath: string): Promise<Uint8Array>;
}

export type Step = { kind: 'write'; target: string; content: string; mode: number | undefined } | { kind: 'remove'; target: string };

export interface OpPlan {
  change: ChangedFile;
  steps: Step[];
}

type ContentFailure = { code: 'CONTEXT_NOT_FOUND' | 'AMBIGUOUS_CONTEXT' | 'OVERLAPPING_CHUNKS'; reason: string };

export function opName(op: PatchOp): OpName {
  return op.kind === 'update' && op.movePath !== undefined ? 'move' : op.kind;
}

// `locate`: where a path of the patch really is (the sandbox's private /tmp; port.ts).
export async function planOp(
  op: PatchOp,
  workdir: string,
  reader: FileReader,
  locate: (absPath: string) => string = (absPath) => absPath,
): Promise<OpPlan | OpFailure> {
  const fail = (code: FailureCode, reason: string): OpFailure => ({ op: opName(op), path: op.path, code, reason });
  const absPath = locate(path.resolve(workdir, op.path));
  try {
    const probe = await reader.probe(absPath);
    if (probe.kind === 'directory') return fail('IS_A_DIRECTORY', `${clipText(op.path)} is a directory, not a file.`);
    if (probe.kind === 'other') return fail('NOT_A_FILE', `${clipText(op.path)} is not a regular file.`);
    if (op.kind === 'add') {
      const existing = probe.kind === 'file';
      const write: Step = {
        kind: 'write',
        target: existing ? probe.realPath : absPath,
        content: op.contents,
        mode: existing ? probe.mode : undefined,
      };
      return { change: { kind: 'A', path: op.path }, steps: [write] };
    }
    if (probe.kind === 'missing') return fail('FILE_NOT_FOUND', `${clipText(op.path)} does not exist.`);
    if (op.kind === 'delete') return { change: { kind: 'D', path: op.path }, steps: [{ kind: 'remove', target: absPath }] };

    const original = splitLines(await reader.read(probe.realPath));
    if (!original) return fail('NOT_UTF8', `${clipText(op.path)} is not valid UTF-8 text.`);
    const updated = updateLines(original, op.chunks);
    if ('code' in updated) return fail(updated.code, updated.reason);
    const content = joinLines(updated);
    if (op.movePath === undefined) return { change: { kind: 'M', path: op.path }, steps: [write(probe, content)] };

    const destination = await reader.probe(locate(path.resolve(workdir, op.movePath)));
    if (destination.kind === 'file' && destination.realPath === probe.realPath) {
      return { change: { kind: 'M', path: op.path }, steps: [write(probe, content)] };
    }
    if (destination.kind === 'directory') return fail('IS_A_DIRECTORY', `the destination ${clipText(op.movePath)} is a directory.`);
    if (destination.kind === 'other') return fail('NOT_A_FILE', `the destination ${clipText(op.movePath)} is not a regular file.`);
    return {
      change: { kind: 'M', path: op.movePath, movedFrom: op.path },
      steps: [
        { kind: 'write', target: destination.realPath, content, mode: probe.mode },
        { kind: 'remove', target: absPath },
      ],
    };
  } catch (error) {
    if (error instanceof BoundsDenied) return fail(error.code, error.message);
    return fail('READ_FAILED', `could not read ${clipText(op.path)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function write(probe: FileProbe, content: string): Step {
  return { kind: 'write', target: probe.realPath, content, mode: probe.mode };
}

// ---- chunks ------------------------------------------------------------------------------------

interface Region {
  chunk: number;
  start: number;
  lines: PatchChunkLine[];
  oldLength: number;
}

interface Candidates {
  starts: number[];
  lines: PatchChunkLine[];
  oldLength: number;
  /** A pure addition's search point for the next chunk (past its headers), where it is not its start. */
  next?: number;
}

// Why a chunk was not found: the header or the lines that could not be matched, and the
// 0-based position the search started at.
interface NotFound {
  missing: string[];
  after: number;
}

export function updateLines(file: FileLines, chunks: readonly PatchChunk[]): FileLines | ContentFailure {
  const index = new LineIndex(file.texts);
  const forward = locateForward(index, chunks);
  if ('regions' in forward) return rebuild(file, forward.regions);
  if (!('outOfOrder' in forward)) return forward;

  const regions: Region[] = [];
  const ambiguous: { chunk: number; found: Candidates }[] = [];
  for (const [i, chunk] of chunks.entries()) {
    const found = locate(index, chunk, 0, 'all');
    if ('missing' in found) return notFound(i, chunks, found);
    if (found.starts.length > 1) ambiguous.push({ chunk: i, found });
    else regions.push({ chunk: i, start: found.starts[0] as number, lines: found.lines, oldLength: found.oldLength });
  }
  const [first] = ambiguous;
  if (first) {
    const why = `${label(forward.outOfOrder, chunks)} was not found after the chunk before it; chunks out of order are accepted only when each matches exactly one place in the file, but `;
    return ambiguity(first.chunk, chunks, first.found, why, first.chunk === forward.outOfOrder);
  }
  sortRegions(regions);
  for (let k = 1; k < regions.length; k++) {
    const a = regions[k - 1] as Region;
    const b = regions[k] as Region;
    if (b.start < a.start + a.oldLength) {
      const [x, y] = a.chunk < b.chunk ? [a, b] : [b, a];
      return {
        code: 'OVERLAPPING_CHUNKS',
        reason: `the chunks are out of order and ${label(x.chunk, chunks)} (${span(x)}) overlaps ${label(y.chunk, chunks)} (${span(y)}).`,
      };
    }
  }
  return rebuild(file, regions);
}

type Forward = { regions: Region[] } | { outOfOrder: number } | ContentFailure;

function locateForward(index: LineIndex, chunks: readonly PatchChunk[]): Forward {
  const regions: Region[] = [];
  let cursor = 0;
  for (const [i, chunk] of chunks.entries()) {
    const found = locate(index, chunk, cursor, i > 0 && chunk.contexts.length > 0 ? 'first' : 'all');
    if ('missing' in found) return { outOfOrder: i };
    if (found.starts.length > 1) return ambiguity(i, chunks, found);
    const start = found.starts[0] as number;
    regions.push({ chunk: i, start, lines: found.lines, oldLength: found.oldLength });
    if (found.next !== undefined) cursor = found.next;
    else if (found.oldLength > 0 || chunk.contexts.length > 0) cursor = start + found.oldLength;
  }
  return { regions };
}

function locate(index: LineIndex, chunk: PatchChunk, from: number, search: 'first' | 'all'): Candidates | NotFound {
  const pureAddition = chunk.lines.every((line) => line.kind === '+');
  const found = locateLines(index, chunk, chunk.lines, from, search, pureAddition);
  if (!('missing' in found)) return found;
  const retry = withoutFinalEmptyLine(chunk.lines);
  if (!retry) return found;
  const again = locateLines(index, chunk, retry, from, search, false);
  return 'missing' in again ? found : again;
}

// Codex's second try (see the top of this file): the chunk's lines without an empty last old
// line, and then without an empty last new line; undefined when the last old line is not empty.
export function withoutFinalEmptyLine(lines: readonly PatchChunkLine[]): PatchChunkLine[] | undefined {
  const out = [...lines];
  const lastOld = out.findLastIndex((line) => line.kind !== '+');
  if (lastOld < 0 || out[lastOld]!.text !== '') return undefined;
  // A context line is old and new at once: leaving the old lines makes it an added line.
  if (out[lastOld]!.kind === ' ') out[lastOld] = { kind: '+', text: '' };
  else out.splice(lastOld, 1);
  const lastNew = out.findLastIndex((line) => line.kind !== '-');
  if (lastNew >= 0 && out[lastNew]!.text === '') {
    if (out[lastNew]!.kind === ' ') out[lastNew] = { kind: '-', text: '' };
    else out.splice(lastNew, 1);
  }
  return out;
}

// pureAddition: the chunk has no old lines at all (not merely none left after the second try):
// its new lines go at the end of the file.
function locateLines(
  index: LineIndex,
  chunk: PatchChunk,
  lines: PatchChunkLine[],
  from: number,
  search: 'first' | 'all',
  pureAddition: boolean,
): Candidates | NotFound {
  const old = lines.filter((line) => line.kind !== '+').map((line) => line.text);
  const end = index.length - old.length;
  // Where the old lines are when searched from `after`: first match, or the end for `*** End of File`.
  const place = (after: number): number | null => {
    if (pureAddition) return index.length;
    if (old.length === 0) return after; // none left after the second try: `*** End of File` or not (Codex)
    if (chunk.endOfFile) return end >= after && index.find(old, end, end) ? end : null;
    return index.findFirst(old, after);
  };
  const candidates = (starts: number[], next?: number): Candidates => ({ starts, lines, oldLength: old.length, ...(next === undefined ? {} : { next }) });
  const [firstHeader, ...moreHeaders] = chunk.contexts;

  if (firstHeader === undefined) {
    if (pureAddition) return candidates([index.length], from);
    if (old.length === 0) return candidates([from]);
    if (chunk.endOfFile) return place(from) === null ? { missing: old, after: from } : candidates([end]);
    const found = index.find(old, from);
    return found ? candidates(found.starts) : { missing: old, after: from };
  }

  const anchors = search === 'first' ? [index.findFirst([firstHeader], from)] : (index.find([firstHeader], from)?.starts ?? []);
  const starts = new Set<number>();
  let next: number | undefined; // past the headers of the first anchor that led to a place
  let failure: NotFound | null = null;
  for (const anchor of anchors) {
    if (anchor === null) break;
    let after = anchor + 1;
    let missing: string | null = null;
    for (const header of moreHeaders) {
      const at = index.findFirst([header], after);
      if (at === null) {
        missing = `@@ ${header}`;
        break;
      }
      after = at + 1;
    }
    const start = missing === null ? place(after) : null;
    if (start !== null) {
      starts.add(start);
      next ??= after;
    } else failure ??= { missing: missing === null ? old : [missing], after };
  }
  if (starts.size > 0)
    return candidates(
      [...starts].sort((a, b) => a - b),
      pureAddition ? next : undefined,
    );
  return failure ?? { missing: [`@@ ${firstHeader}`], after: from };
}

// One change inside a chunk's region: a run of '-' and '+' lines between its context lines.
interface Edit {
  start: number; // the file line it replaces or goes before
  removed: number;
  added: string[];
  chunk: number;
}

// Each region becomes its edits (context lines stay the file's own), and the edits of all chunks
// are made in file order: at one place, as Codex orders them, in patch order (an insertion first).
function rebuild(file: FileLines, regions: Region[]): FileLines {
  const edits: Edit[] = [];
  for (const region of regions) {
    let at = region.start;
    let edit: Edit | undefined;
    for (const line of region.lines) {
      if (line.kind === ' ') {
        edit = undefined;
        at++;
        continue;
      }
      if (!edit) edits.push((edit = { start: at, removed: 0, added: [], chunk: region.chunk }));
      if (line.kind === '-') {
        edit.removed++;
        at++;
      } else edit.added.push(line.text);
    }
  }
  // Stable: edits of one chunk keep their order.
  edits.sort((a, b) => a.start - b.start || Math.min(a.removed, 1) - Math.min(b.removed, 1) || a.chunk - b.chunk);
  const texts: string[] = [];
  const eols: FileLines['eols'] = [];
  let next = 0;
  for (const edit of edits) {
    for (; next < edit.start; next++) {
      texts.push(file.texts[next] as string);
      eols.push(file.eols[next] ?? '\n');
    }
    next += edit.removed;
    for (const text of edit.added) {
      texts.push(text);
      eols.push(file.newline);
    }
  }
  for (; next < file.texts.length; next++) {
    texts.push(file.texts[next] as string);
    eols.push(file.eols[next] ?? '\n');
  }
  return { ...file, texts, eols };
}

// By start; at the same start an insertion goes before a replacement, then patch order.
function sortRegions(regions: Region[]): void {
  regions.sort((a, b) => a.start - b.start || Math.min(a.oldLength, 1) - Math.min(b.oldLength, 1) || a.chunk - b.chunk);
}

// ---- failure texts -----------------------------------------------------------------------------

const QUOTED_LINES = 10;

function label(i: number, chunks: readonly PatchChunk[]): string {
  const chunk = chunks[i] as PatchChunk;
  const first = chunk.contexts[0] !== undefined ? `@@ ${chunk.contexts[0]}` : (chunk.lines.find((l) => l.kind !== '+') ?? chunk.lines[0])?.text;
  const shown = (first ?? '').trim();
  return `chunk ${i + 1} of ${chunks.length} ("${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}", patch line ${chunk.line})`;
}

function span(region: Region): string {
  return region.oldLength === 0 ? `insertion before line ${region.start + 1}` : `lines ${region.start + 1}-${region.start + region.oldLength}`;
}

function notFound(i: number, chunks: readonly PatchChunk[], found: NotFound): ContentFailure {
  const quoted = found.missing.slice(0, QUOTED_LINES).map((line) => `    ${clipText(line)}`);
  if (found.missing.length > QUOTED_LINES) quoted.push(`    ... (${found.missing.length - QUOTED_LINES} more)`);
  const where = found.after === 0 ? 'in the file' : `after line ${found.after}`;
  const atEnd = chunks[i]?.endOfFile ? ' at the end of the file (the chunk ends with *** End of File)' : '';
  return {
    code: 'CONTEXT_NOT_FOUND',
    reason: `${label(i, chunks)}: these lines were not found ${where}${atEnd}:\n${quoted.join('\n')}`,
  };
}

function ambiguity(i: number, chunks: readonly PatchChunk[], found: Candidates, prefix = '', same = false): ContentFailure {
  // A region's first line, or for an insertion the line it would follow.
  const lines = found.starts.slice(0, QUOTED_LINES).map((start) => (found.oldLength === 0 ? start : start + 1));
  const more = found.starts.length > QUOTED_LINES ? ` and ${found.starts.length - QUOTED_LINES} more` : '';
  const what = found.oldLength === 0 ? 'insertion after lines' : 'lines';
  return {
    code: 'AMBIGUOUS_CONTEXT',
    reason: `${prefix}${same ? 'it' : label(i, chunks)} matches ${found.starts.length} places (${what} ${lines.join(', ')}${more}); nothing was guessed.`,
  };
}
