import { describe, expect, it } from 'vitest';
import { LineIndex } from '../../src/patch/match.js';

describe('LineIndex.find: levels in order, all matches of the first level that has any', () => {
  it('exact', () => {
    const index = new LineIndex(['a', 'b', 'c', 'a', 'b']);
    expect(index.find(['a', 'b'], 0)).toEqual({ level: 'exact', starts: [0, 3] });
    expect(index.find(['b', 'c'], 0)).toEqual({ level: 'exact', starts: [1] });
  });

  it('trailing whitespace ignored', () => {
    const index = new LineIndex(['foo   ', 'bar\t\t', 'baz']);
    expect(index.find(['foo', 'bar  '], 0)).toEqual({ level: 'trailing-whitespace', starts: [0] });
  });

  it('surrounding whitespace ignored', () => {
    const index = new LineIndex(['    foo   ', '\tbar', 'x']);
    expect(index.find(['foo', 'bar'], 0)).toEqual({ level: 'whitespace', starts: [0] });
  });

  it('Unicode dashes, quotes and spaces normalised', () => {
    const index = new LineIndex(['a \u2013 b \u2212 c', '\u201Cq\u201D \u2018s\u2019 \u201E\u201F \u201A\u201B', 'x\u00A0y\u2000z\u3000w\u202F\u205F!']);
    expect(index.find(['a - b - c', '"q" \'s\' "" \'\'', 'x y z w  !'], 0)).toEqual({ level: 'unicode-punctuation', starts: [0] });
  });

  it('stops at the first level with a match: an exact match is not made ambiguous by fuzzier ones', () => {
    const index = new LineIndex(['foo', '  foo', 'foo  ']);
    expect(index.find(['foo'], 0)).toEqual({ level: 'exact', starts: [0] });
    expect(index.find(['foo '], 0)).toEqual({ level: 'trailing-whitespace', starts: [0, 2] });
  });

  it('restricts starts to [from, to] and to where the pattern fits', () => {
    const index = new LineIndex(['x', 'y', 'x', 'y', 'x']);
    expect(index.find(['x'], 1)?.starts).toEqual([2, 4]);
    expect(index.find(['x'], 1, 3)?.starts).toEqual([2]);
    expect(index.find(['x', 'y'], 0)?.starts).toEqual([0, 2]);
    expect(index.find(['x'], 5)).toBeNull();
    expect(index.find(['nope'], 0)).toBeNull();
  });

  it('anchors on a rare line even when the first pattern line is everywhere', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? '}' : `line ${i}`));
    const index = new LineIndex(lines);
    expect(index.find(['}', 'line 5001', '}'], 0)).toEqual({ level: 'exact', starts: [5000] });
  });
});

describe('LineIndex.findFirst', () => {
  it('returns the first match at or after from, at the first level that has one', () => {
    const index = new LineIndex(['a ', 'b', 'a', 'b', 'a']);
    expect(index.findFirst(['a'], 0)).toBe(2);
    expect(index.findFirst(['a'], 3)).toBe(4);
    expect(index.findFirst(['a', 'b'], 0)).toBe(2);
    expect(index.findFirst([' b'], 0)).toBe(1);
    expect(index.findFirst(['c'], 0)).toBeNull();
  });
});
