// Bounded, failure-tolerant file reads for context discovery: AGENTS.override.md / AGENTS.md
// (Codex's precedence) and the head of a SKILL.md. A missing, empty or unreadable file is
// simply absent; nothing here throws.

import fs from 'node:fs';
import path from 'node:path';

// Codex order: the override wins; an empty file does not count.
export const INSTRUCTION_FILE_NAMES = ['AGENTS.override.md', 'AGENTS.md'] as const;

export interface BoundedText {
  path: string;
  text: string; // at most maxBytes of UTF-8, cut on a character boundary
  totalBytes: number;
  omittedBytes: number; // totalBytes - bytes of text
}

function regularFileSize(file: string): number | undefined {
  try {
    const stat = fs.statSync(file); // follows symlinks
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

// Reads the first maxBytes of `file`; undefined when it is not a readable regular file.
export function readBounded(file: string, maxBytes: number): BoundedText | undefined {
  const size = regularFileSize(file);
  if (size === undefined) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buffer = Buffer.alloc(Math.min(size, maxBytes));
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    let end = read;
    // Do not split a UTF-8 sequence: step back over continuation bytes to a lead byte and drop
    // the lead byte too when its sequence is incomplete.
    if (read < size && end > 0) {
      let lead = end - 1;
      while (lead > 0 && (buffer[lead]! & 0xc0) === 0x80) lead -= 1;
      const byte = buffer[lead]!;
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      if (lead + length > end) end = lead;
    }
    const text = buffer.subarray(0, end).toString('utf8');
    return { path: file, text, totalBytes: size, omittedBytes: size - end };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

// The instruction file that applies in `dir` (override first, non-empty only), bounded.
export function readInstructions(dir: string, maxBytes: number): BoundedText | undefined {
  for (const name of INSTRUCTION_FILE_NAMES) {
    const file = path.join(dir, name);
    const size = regularFileSize(file);
    if (!size) continue;
    const read = readBounded(file, maxBytes);
    if (read && (read.text.trim() !== '' || read.omittedBytes > 0)) return read;
  }
  return undefined;
}

// Which instruction files exist (non-empty) in `dir`, in precedence order.
export function instructionFilesIn(dir: string): string[] {
  return INSTRUCTION_FILE_NAMES.filter((name) => (regularFileSize(path.join(dir, name)) ?? 0) > 0);
}
