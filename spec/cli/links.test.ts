// Every relative link of README.md and the docs/ pages resolves: the file or folder exists, and
// an #anchor names a heading of the page it points to, as GitHub makes anchors from headings.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, docPages } from './docs-pages.js';

// Markdown outside fenced blocks and code spans: where links and headings are.
function prose(markdown: string): string {
  return markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/``.+?``|`[^`\n]+`/g, (span) => span.replace(/[[\]()#]/g, ' '));
}

// GitHub's anchor for a heading: its text (code marks, emphasis and link targets dropped), lower
// case, every character but letters, digits, spaces, '-' and '_' removed, spaces made '-'; a
// repeated anchor gets -1, -2, ...
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

const pages = docPages();
const links = pages.flatMap((page) =>
  [...prose(page.text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => ({ page: page.file, target: match[1]! }))
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target)),
);

describe('links between the pages', () => {
  it('has links to check', () => expect(links.length).toBeGreaterThan(50));

  it('makes anchors as GitHub does', () => {
    expect([...anchors("# A `b` c: d (e)\n## Why zodex-spawn's own\n## x\n## x\n```\n# not a heading\n```\n")]).toEqual([
      'a-b-c-d-e',
      'why-zodex-spawns-own',
      'x',
      'x-1',
    ]);
  });

  for (const { page, target } of links) {
    it(`${page}: ${target}`, () => {
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
      expect(fs.existsSync(path.join(REPO, resolved)), `${resolved} exists`).toBe(true);
      if (anchor !== undefined) {
        expect(resolved.endsWith('.md'), `an #anchor points into a Markdown page, not ${resolved}`).toBe(true);
        expect([...anchors(fs.readFileSync(path.join(REPO, resolved), 'utf8'))], `a heading of ${resolved} makes #${anchor}`).toContain(anchor);
      }
    });
  }
});
