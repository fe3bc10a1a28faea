// The Liveboard's OAuth page: the clients zodexd --oauth approved (grants), each with a Revoke
// button. GET /grants renders the list from the state database; POST /api/oauth/grants/:id/revoke
// (the board's CSRF rules, checked by server.ts) revokes one, so its tokens stop working at once.

import fs from 'node:fs';
import type http from 'node:http';
import { escapeHtml } from '../shared/browser.js';
import { databasePath } from '../store/index.js';
import { OAuthStore, type OAuthGrant } from '../store/oauth.js';

export const GRANTS_PATH = '/grants';
export const REVOKE_PATH = /^\/api\/oauth\/grants\/(zg_[A-Za-z0-9_-]{1,40})\/revoke$/;

const SCRIPT = `
'use strict';
(() => {
  const csrf = document.querySelector('meta[name="zodex-csrf"]').getAttribute('content');
  const error = document.getElementById('error');
  for (const button of document.querySelectorAll('button[data-grant]')) {
    button.addEventListener('click', async () => {
      const response = await fetch('/api/oauth/grants/' + button.dataset.grant + '/revoke', {
        method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Zodex-Liveboard': csrf }, body: '{}',
      });
      const answer = await response.json().catch(() => ({ ok: false, error: 'no answer' }));
      if (answer.ok) location.reload();
      else error.textContent = answer.error;
    });
  }
})();
`;

// Grants, or none when no database exists yet; the store is opened per request (a few ms).
export function readGrants(stateDir: string): OAuthGrant[] {
  if (!fs.existsSync(databasePath(stateDir))) return [];
  const store = OAuthStore.open(stateDir, { mustExist: true });
  try {
    return store.grants();
  } finally {
    store.close();
  }
}

export function revokeGrant(stateDir: string, id: string, now: number): boolean {
  const store = OAuthStore.open(stateDir, { mustExist: true });
  try {
    return store.revokeGrant(id, 'by the operator (Liveboard)', now);
  } finally {
    store.close();
  }
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');

export function renderGrantsPage(grants: OAuthGrant[], nonce: string, csrfToken: string): string {
  const rows = grants
    .map(
      (grant) =>
        `<tr data-testid="grant-row"><td>${escapeHtml(grant.clientName)}</td><td><code>${escapeHtml(grant.redirectUri.slice(0, 200))}</code></td>` +
        `<td>${when(grant.createdAt)}</td><td>${when(grant.usedAt)}</td><td><code>${escapeHtml(grant.id)}</code></td>` +
        `<td><button type="button" data-grant="${escapeHtml(grant.id)}" aria-label="Revoke ${escapeHtml(grant.clientName)}">Revoke</button></td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="zodex-csrf" content="${escapeHtml(csrfToken)}">
<title>zodex Liveboard: OAuth clients</title>
<link rel="icon" href="data:,">
<style nonce="${escapeHtml(nonce)}">body { font: 14px/1.45 system-ui, sans-serif; margin: 1.2rem; } td, th { text-align: left; padding: .2rem .6rem; } #error { color: #b42318; }</style>
</head>
<body>
<h1>OAuth clients</h1>
<p><a href="/">Back to the Liveboard</a>. Clients the operator approved (zodexd --oauth); revoking one stops its tokens at once, and zodexd ends its sessions and kills its commands within about a second.</p>
${grants.length === 0 ? '<p data-testid="no-grants">No approved clients.</p>' : `<table aria-label="OAuth grants"><tr><th>Client</th><th>Redirect</th><th>Approved</th><th>Last use</th><th>Grant</th><th></th></tr>\n${rows}\n</table>`}
<p id="error" role="alert"></p>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>
</body>
</html>
`;
}
