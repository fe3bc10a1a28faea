// The approval page zodexd shows the operator for each authorization request, and the page for
// a request that cannot even be sent back to its client. Self-contained (no CDN), under the same
// nonce CSP as the Liveboard; the script posts the decision as JSON with the request's CSRF
// token (features/shared/browser.ts checks both) and then follows the redirect the answer names.

import os from 'node:os';
import { escapeHtml } from '../shared/browser.js';
import type { PendingRequest } from './context.js';
import { PATHS } from './urls.js';

export const APPROVAL_CSRF_HEADER = 'x-zodex-approval';

const STYLE = `
:root { color-scheme: light dark; font: 15px/1.5 system-ui, sans-serif; }
body { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem 1rem; }
dt { color: #667085; } dd { margin: 0; overflow-wrap: anywhere; }
.warn { border-left: 4px solid #b42318; padding: .3rem .8rem; }
input { font: inherit; font-family: ui-monospace, monospace; letter-spacing: .1em; padding: .3rem .5rem; width: 12rem; }
button { font: inherit; padding: .3rem 1rem; margin-right: .5rem; }
#error { color: #b42318; min-height: 1.5em; }
`;

const SCRIPT = `
'use strict';
(() => {
  const meta = (name) => document.querySelector('meta[name="' + name + '"]').getAttribute('content');
  const csrf = meta('zodex-approval');
  const request = meta('zodex-request');
  const error = document.getElementById('error');
  const code = document.getElementById('code');
  const send = async (approve) => {
    error.textContent = '';
    let answer;
    try {
      const response = await fetch(${JSON.stringify(PATHS.decision)} + '?request=' + encodeURIComponent(request), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Zodex-Approval': csrf },
        body: JSON.stringify({ approve, pairing_code: code.value }),
      });
      answer = await response.json();
    } catch (failure) {
      error.textContent = 'zodexd did not answer: ' + failure;
      return;
    }
    if (answer.error) error.textContent = answer.error;
    if (answer.redirect) {
      document.getElementById('decision').hidden = true;
      document.getElementById('done').hidden = false;
      location.replace(answer.redirect);
    }
  };
  document.getElementById('decision').addEventListener('submit', (event) => {
    event.preventDefault();
    void send(true);
  });
  document.getElementById('deny').addEventListener('click', () => void send(false));
})();
`;

function shell(nonce: string, title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style nonce="${escapeHtml(nonce)}">${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

export function renderApprovalPage(request: PendingRequest, nonce: string): string {
  const redirect = new URL(request.redirectUri);
  const user = os.userInfo().username;
  const head = `<meta name="zodex-approval" content="${escapeHtml(request.csrf)}">\n<meta name="zodex-request" content="${escapeHtml(request.id)}">\n`;
  const body = `<h1>Allow <span data-testid="client-name">${escapeHtml(request.client.clientName)}</span> to use zodex?</h1>
<p class="warn">Approving lets this client run any command on this machine as <b>${escapeHtml(user)}</b>, until you revoke it
(<code>zodex oauth revoke</code>, or the Liveboard).</p>
<dl>
<dt>Client</dt><dd>${escapeHtml(request.client.clientName)}</dd>
<dt>Client ID</dt><dd><code>${escapeHtml(request.client.clientId.slice(0, 300))}</code> (${request.client.kind === 'metadata' ? 'its metadata document' : 'registered here'})</dd>
<dt>Code goes to</dt><dd data-testid="redirect-host"><b>${escapeHtml(redirect.host || redirect.protocol)}</b> <code>${escapeHtml(request.redirectUri.slice(0, 300))}</code></dd>
<dt>Resource</dt><dd><code>${escapeHtml(request.resource)}</code></dd>
</dl>
<form id="decision">
<p><label>Pairing code, as zodexd printed it on its stderr (or as <code>zodex oauth pair</code> printed it):<br>
<input id="code" name="code" autocomplete="off" spellcheck="false" required aria-label="Pairing code"></label></p>
<p><button type="submit" id="approve">Approve</button><button type="button" id="deny">Deny</button></p>
</form>
<p id="done" hidden>Done: returning to the client…</p>
<p id="error" role="alert"></p>
<script nonce="${escapeHtml(nonce)}">${SCRIPT}</script>`;
  return shell(nonce, 'zodex: approve a client', head, body);
}

export function renderErrorPage(message: string, nonce: string): string {
  return shell(nonce, 'zodex: authorization refused', '', `<h1>This authorization request cannot be served</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}
