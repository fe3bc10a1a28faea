// The one line that says what lies between output_head and output, and where to read it.
// Input: the gap as stream byte offsets [from, to), its first and last line numbers when known,
// and where the stream is kept (spill file: bytes [0, kept); tail file: bytes [tailFrom, ...)).

export interface Gap {
  from: number;
  to: number;
  firstLine: number; // line of byte `from` (1-based)
  lastLine: number; // line of byte `to - 1`
  file: string | undefined;
  kept: number; // the spill file holds stream bytes [0, kept)
  capBytes: number | undefined; // why it stopped: the cap, when it was reached
  tailFile: string | undefined;
  tailFrom: number | undefined; // the tail file holds stream bytes [tailFrom, ...)
}

// A path as one shell word.
export function shellQuote(path: string): string {
  return /^[\w./+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

export function describeGap(gap: Gap): string {
  const bytes = gap.to - gap.from;
  const lineCount = gap.lastLine - gap.firstLine + 1;
  const what = `${lineCount} ${lineCount === 1 ? 'line' : 'lines'} (lines ${gap.firstLine}-${gap.lastLine}, ${bytes} bytes at stream offsets ${gap.from}-${gap.to - 1})`;
  const parts: string[] = [];
  const inFileTo = Math.min(gap.to, gap.kept);
  if (gap.from < inFileTo && gap.file) {
    const file = shellQuote(gap.file);
    if (inFileTo === gap.to) parts.push(`read them with: sed -n '${gap.firstLine},${gap.lastLine}p' ${file}`);
    else parts.push(`output_file has them from line ${gap.firstLine} to its end: sed -n '${gap.firstLine},$p' ${file}`);
  }
  const tailFrom = gap.tailFrom ?? gap.to;
  const lostFrom = Math.max(gap.from, gap.kept);
  const lostTo = Math.min(gap.to, tailFrom);
  if (lostFrom < lostTo) {
    const why =
      gap.capBytes !== undefined && gap.kept >= gap.capBytes ? `past the ${gap.capBytes}-byte file cap, before the kept tail` : 'not written to output_file';
    parts.push(`stream offsets ${lostFrom}-${lostTo - 1} (${lostTo - lostFrom} bytes) were not kept (${why})`);
  }
  const tailStart = Math.max(gap.from, tailFrom);
  if (tailStart < gap.to) {
    const length = gap.to - tailStart;
    if (gap.tailFile)
      parts.push(`output_tail_file has the last ${length} bytes of them: tail -c +${tailStart - tailFrom + 1} ${shellQuote(gap.tailFile)} | head -c ${length}`);
    else parts.push(`the last ${length} bytes of them are kept in memory only: write_stdin since_offset ${tailStart} delivers from there`);
  }
  return `${what} not shown between output_head and output; ${parts.join('; ')}`;
}
