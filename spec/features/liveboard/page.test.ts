// The page is self-contained: nothing in it points anywhere but the board (it works offline),
// and its one script and one style carry the response's CSP nonce.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../../src/features/shared/browser.js';
import { renderPage, SCRIPT_FILES } from '../../../src/features/liveboard/page.js';

const html = renderPage({ nonce: 'NONCE123', csrfToken: 'CSRF456' });

describe('the Liveboard page', () => {
  it('has no external URL at all', () => {
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?\s*(?:\/\/|[a-z][a-z0-9+.-]*:(?!,))/i); // only data:, allowed (the empty favicon)
    expect(html).not.toMatch(/@import|url\(/i);
    expect([...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/g)].map((m) => m[1])).toEqual(['data:,', '/grants']); // the favicon, and its own OAuth page
  });

  it('fetches only from its own origin: /events and /api/…', () => {
    expect([...html.matchAll(/new EventSource\('([^']+)'\)/g)].map((m) => m[1])).toEqual(['/events']);
    expect(html).toMatch(/fetch\(path,/);
    for (const match of html.matchAll(/post\('([^']+)'/g)) expect(match[1]).toMatch(/^\/api\//);
  });

  it('gives the script and the style the nonce, and nothing else runs inline', () => {
    expect([...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1])).toEqual([' nonce="NONCE123"']);
    expect([...html.matchAll(/<style([^>]*)>/g)].map((m) => m[1])).toEqual([' nonce="NONCE123"']);
    expect(html).not.toMatch(/\son[a-z]+\s*=\s*"/); // no inline event handler attributes
    expect(html).not.toMatch(/\sstyle\s*=\s*"/);
    expect(html).toContain('<meta name="zodex-csrf" content="CSRF456">');
    expect(contentSecurityPolicy('NONCE123')).toBe(
      "default-src 'none'; script-src 'nonce-NONCE123'; style-src 'nonce-NONCE123'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });

  it('escapes what it embeds', () => {
    expect(renderPage({ nonce: 'n', csrfToken: '"><script>' })).toContain('content="&quot;&gt;&lt;script&gt;"');
  });
});

describe("the Liveboard's browser script", () => {
  it('is served exactly as its own files, which the typecheck checks against the DOM', () => {
    const folder = path.join(__dirname, '../../../src/features/liveboard/browser');
    expect(
      fs
        .readdirSync(folder)
        .filter((name) => name.endsWith('.js'))
        .sort(),
    ).toEqual([...SCRIPT_FILES].sort());
    const scripts = SCRIPT_FILES.map((name) => fs.readFileSync(path.join(folder, name), 'utf8'));
    for (const script of scripts) expect(script.startsWith('// @ts-check\n')).toBe(true);
    expect(html).toContain(`<script nonce="NONCE123">${scripts.join('\n')}</script>`);
    const config = fs.readFileSync(path.join(folder, 'tsconfig.json'), 'utf8');
    expect(config).toMatch(/"checkJs": true/);
    expect(config).toMatch(/"DOM"/);
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.typecheck).toContain('tsc -p src/features/liveboard/browser/tsconfig.json');
  });
});
