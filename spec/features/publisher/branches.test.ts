import { describe, expect, it } from 'vitest';
import { checkBranchName, protectedPatternFor } from '../../../src/features/publisher/branches.js';

describe('branch rules', () => {
  it('accepts ordinary branch names', () => {
    for (const name of ['feature', 'zodex/fix-login', 'release-notes', 'v1.2.3', 'a_b']) expect(() => checkBranchName(name)).not.toThrow();
  });

  it('refuses names that could change a refspec or are not valid refs', () => {
    for (const name of ['', '-f', '+main', 'a:b', 'a..b', 'a b', 'x.lock', 'a//b', '/a', 'a/', 'a/.b', 'HEAD', 'a@{1}', 'a~1', 'a^', 'é']) {
      expect(() => checkBranchName(name), name).toThrow(/INVALID|is not one the publisher pushes/);
    }
  });

  it('matches protected patterns on the safe side: * spans slashes, case is ignored', () => {
    const patterns = ['main', 'master', 'release/*'];
    expect(protectedPatternFor('main', patterns)).toBe('main');
    expect(protectedPatternFor('Main', patterns)).toBe('main');
    expect(protectedPatternFor('release/1.0', patterns)).toBe('release/*');
    expect(protectedPatternFor('release/1.0/hotfix', patterns)).toBe('release/*');
    expect(protectedPatternFor('mainline', patterns)).toBeUndefined();
    expect(protectedPatternFor('releases', patterns)).toBeUndefined();
    expect(protectedPatternFor('feature/main', patterns)).toBeUndefined();
    expect(protectedPatternFor('a.b', ['a*b'])).toBe('a*b');
    expect(protectedPatternFor('axb', ['a.b'])).toBeUndefined();
  });
});
