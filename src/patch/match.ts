// Finding a sequence of patch lines inside a file's lines (pure).
// Flow: a LineIndex normalises the file once per level it is asked about (exact, trailing
// whitespace, surrounding whitespace, Unicode punctuation) and maps each normalised line to its
// positions; a search picks the pattern's rarest line, so candidates cost a lookup, not a scan.

export type MatchLevel = 'exact' | 'trailing-whitespace' | 'whitespace' | 'unicode-punctuation';

// Tried in this order; a search stops at the first level that matches anywhere in its range.
const MATCH_LEVELS: readonly MatchLevel[] = ['exact', 'trailing-whitespace', 'whitespace', 'unicode-punctuation'];

const PUNCTUATION: Record<string, string> = {};
for (const c of '\u2010\u2011\u2012\u2013\u2014\u2015\u2212') PUNCTUATION[c] = '-';
for (const c of '\u2018\u2019\u201A\u201B') PUNCTUATION[c] = "'";
for (const c of '\u201C\u201D\u201E\u201F') PUNCTUATION[c] = '"';
for (const c of '\u00A0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u202F\u205F\u3000') {
  PUNCTUATION[c] = ' ';
}
const PUNCTUATION_CHARS = new RegExp(`[${Object.keys(PUNCTUATION).join('')}]`, 'g');

const NORMALISE: Record<MatchLevel, (line: string) => string> = {
  exact: (line) => line,
  'trailing-whitespace': (line) => line.trimEnd(),
  whitespace: (line) => line.trim(),
  'unicode-punctuation': (line) => line.replace(PUNCTUATION_CHARS, (c) => PUNCTUATION[c] ?? c).trim(),
};

export interface MatchResult {
  level: MatchLevel;
  /** 0-based start positions of every match in the searched range, ascending. */
  starts: number[];
}

interface LevelIndex {
  lines: readonly string[];
  // normalised line -> its position, or its ascending positions when it occurs more than once
  positions: Map<string, number | number[]>;
}

export class LineIndex {
  private readonly levels = new Map<MatchLevel, LevelIndex>();

  constructor(readonly lines: readonly string[]) {}

  get length(): number {
    return this.lines.length;
  }

  // Every match of `pattern` at the first level that has one whose start lies in [from, to];
  // null when no level matches. `to` defaults to the last start the pattern fits at.
  find(pattern: readonly string[], from: number, to = this.lines.length - pattern.length): MatchResult | null {
    for (const level of MATCH_LEVELS) {
      const starts = this.matchesAt(level, pattern, from, to);
      if (starts.length > 0) return { level, starts };
    }
    return null;
  }

  // The first match of `pattern` starting at or after `from`, at the first level that has one.
  findFirst(pattern: readonly string[], from: number): number | null {
    for (const level of MATCH_LEVELS) {
      const starts = this.matchesAt(level, pattern, from, this.lines.length - pattern.length, 1);
      if (starts[0] !== undefined) return starts[0];
    }
    return null;
  }

  private matchesAt(level: MatchLevel, pattern: readonly string[], from: number, to: number, limit = Infinity): number[] {
    if (pattern.length === 0 || from > to) return [];
    const index = this.index(level);
    const normalise = NORMALISE[level];
    const wanted = pattern.map(normalise);
    // Anchor on the pattern line with the fewest occurrences in the file.
    let anchor = 0;
    let anchorPositions: number | number[] | undefined;
    for (let j = 0; j < wanted.length; j++) {
      const positions = index.positions.get(wanted[j] as string);
      if (positions === undefined) return [];
      if (anchorPositions === undefined || count(positions) < count(anchorPositions)) {
        anchor = j;
        anchorPositions = positions;
      }
    }
    const candidates = typeof anchorPositions === 'number' ? [anchorPositions] : (anchorPositions ?? []);
    const starts: number[] = [];
    for (let k = lowerBound(candidates, from + anchor); k < candidates.length && starts.length < limit; k++) {
      const start = (candidates[k] as number) - anchor;
      if (start > to) break;
      if (sequenceAt(index.lines, wanted, start)) starts.push(start);
    }
    return starts;
  }

  private index(level: MatchLevel): LevelIndex {
    let built = this.levels.get(level);
    if (!built) {
      const lines = level === 'exact' ? this.lines : this.lines.map(NORMALISE[level]);
      const positions = new Map<string, number | number[]>();
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as string;
        const seen = positions.get(line);
        if (seen === undefined) positions.set(line, i);
        else if (typeof seen === 'number') positions.set(line, [seen, i]);
        else seen.push(i);
      }
      built = { lines, positions };
      this.levels.set(level, built);
    }
    return built;
  }
}

function count(positions: number | number[]): number {
  return typeof positions === 'number' ? 1 : positions.length;
}

function sequenceAt(lines: readonly string[], wanted: readonly string[], start: number): boolean {
  for (let j = 0; j < wanted.length; j++) if (lines[start + j] !== wanted[j]) return false;
  return true;
}

// The first index whose value is >= target in an ascending array.
function lowerBound(values: readonly number[], target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
