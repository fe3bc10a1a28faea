import { describe, expect, it } from 'vitest';
import { renderGrantsPage } from '../../../src/features/liveboard/grants.js';
import type { PendingRequest } from '../../../src/features/oauth/context.js';
import { renderApprovalPage, renderErrorPage } from '../../../src/features/oauth/page.js';

const evil = '"><script>alert(1)</script>';
const request: PendingRequest = {
  id: 'req1',
  csrf: 'csrf1',
  client: { clientId: `https://app.example/${evil}`, kind: 'metadata', clientName: evil, redirectUris: ['https://app.example/cb'], createdAt: 0 },
  source: '127.0.0.1',
  redirectUri: 'https://app.example/cb',
  redirectGiven: true,
  codeChallenge: 'x'.repeat(43),
  resource: 'http://127.0.0.1:7391/mcp',
  scope: 'zodex',
  state: undefined,
  issuer: 'http://127.0.0.1:7391',
  expiresAt: 0,
  attempts: 0,
  pairingHash: 'h',
};

// Every URL a page names: only its own paths, the empty favicon and (as text) what it shows.
const references = (html: string) => [...html.matchAll(/\b(?:src|href|action)\s*=\s*"([^"]*)"/g)].map((match) => match[1]);

describe('the approval page', () => {
  const html = renderApprovalPage(request, 'NONCE');
  it('escapes what the client chose (its name, its client ID)', () => {
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  });
  it('loads nothing: one nonce script, one nonce style, the empty favicon', () => {
    expect(references(html)).toEqual(['data:,']);
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0])).toEqual(['<script nonce="NONCE">']);
    expect([...html.matchAll(/<style\b[^>]*>/g)].map((match) => match[0])).toEqual(['<style nonce="NONCE">']);
    expect(html).not.toMatch(/@import|url\(/i);
  });
  it('carries its request and CSRF token, and posts the decision to its own path', () => {
    expect(html).toContain('<meta name="zodex-approval" content="csrf1">');
    expect(html).toContain('<meta name="zodex-request" content="req1">');
    expect(html).toContain(`fetch("/oauth/authorize/decision" + '?request='`);
  });
  it('an error page escapes its message', () => {
    expect(renderErrorPage(evil, 'N')).not.toContain('<script>alert');
  });
});

describe("the Liveboard's OAuth clients page", () => {
  it('escapes names and loads nothing but its own links', () => {
    const html = renderGrantsPage(
      [
        {
          id: 'zg_a',
          clientId: 'zc_a',
          clientName: evil,
          redirectUri: 'https://app.example/cb',
          resource: 'r',
          audience: 'tcp:127.0.0.1:7391',
          scope: 'zodex',
          createdAt: 0,
          usedAt: null,
          revokedAt: null,
          revokedWhy: null,
        },
      ],
      'NONCE',
      'CSRF',
    );
    expect(html).not.toContain('<script>alert');
    expect(references(html)).toEqual(['data:,', '/']);
    expect(html).toContain('data-grant="zg_a"');
    expect(renderGrantsPage([], 'N', 'C')).toContain('No approved clients.');
  });
});
