// Byte-level UTF-8 helpers for the output pipeline, which keeps bytes and decodes only what a
// result shows. Counting rules (documented in docs/output.md): output_chars counts Unicode code
// points, i.e. bytes that are not UTF-8 continuation bytes (10xxxxxx); output_lines counts
// newline bytes, plus one when the stream does not end with a newline.

import { isAscii } from 'node:buffer';

const LF = 0x0a;

// Bytes at the end of `bytes` that start a multi-byte character whose remaining bytes have not
// arrived yet (0 to 3). Decoding holds them back so a split character never becomes U+FFFD.
export function incompleteTailLength(bytes: Uint8Array): number {
  const len = bytes.length;
  for (let back = 1; back <= Math.min(3, len); back++) {
    const b = bytes[len - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

// Index of the first byte that is not a continuation byte (at most 3 in), so that a suffix cut
// at an arbitrary byte offset starts on a character boundary.
export function firstCharBoundary(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && i < 3 && (bytes[i]! & 0xc0) === 0x80) i++;
  return i;
}

export interface StreamCounts {
  chars: number;
  newlines: number;
}

// Adds the code points and newline bytes of `chunk` to `counts`. ASCII chunks, the common case,
// take native fast paths: isAscii for the character count, memchr (indexOf) for sparse newlines.
export function countInto(counts: StreamCounts, chunk: Uint8Array): void {
  const len = chunk.length;
  if (len === 0) return;
  if (isAscii(chunk)) {
    counts.chars += len;
    counts.newlines += countNewlines(chunk);
    return;
  }
  let chars = 0;
  let newlines = 0;
  for (let i = 0; i < len; i++) {
    const b = chunk[i]!;
    if ((b & 0xc0) !== 0x80) chars++;
    if (b === LF) newlines++;
  }
  counts.chars += chars;
  counts.newlines += newlines;
}

// indexOf is fastest for long lines; a plain loop wins when lines are short. Start with indexOf
// and switch to the loop once lines prove dense.
export function countNewlines(chunk: Uint8Array): number {
  let count = 0;
  let at = chunk.indexOf(LF);
  while (at !== -1) {
    count++;
    if (count === 64 && at < 4096) {
      for (let i = at + 1; i < chunk.length; i++) if (chunk[i] === LF) count++;
      return count;
    }
    at = chunk.indexOf(LF, at + 1);
  }
  return count;
}
