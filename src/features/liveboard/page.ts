// The Liveboard page: one self-contained HTML document, inline CSS and vanilla JS (browser/board.js),
// no framework, nothing fetched from anywhere but this board (it works offline). The script runs
// under a nonce-based CSP; the CSRF token it sends with every action sits in a <meta> tag.
// Data flow in the page: EventSource('/events') -> snapshot / update / tail -> keyed DOM updates
// (cards are reused, so an alias being edited or an input being typed survives every update).

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { escapeHtml } from '../shared/browser.js';

const STYLE = String.raw`
:root { color-scheme: light dark; --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #667085; --line: #d9dde5;
  --accent: #2457c5; --ok: #1c7c3a; --bad: #b42318; --warn: #9a6700; --op: #7a3fb0; --pre-bg: #0f1419; --pre-text: #e6e6e6; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0f1115; --panel: #171a21; --text: #e4e7ec; --muted: #98a2b3; --line: #2b303b;
    --accent: #7aa2ff; --ok: #4ac26b; --bad: #f97066; --warn: #e3b341; --op: #c39bff; --pre-bg: #05070a; --pre-text: #d0d4da; }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--text); }
header.top { display: flex; align-items: baseline; gap: 1rem; padding: .7rem 1.2rem; border-bottom: 1px solid var(--line); background: var(--panel); position: sticky; top: 0; z-index: 1; }
header.top h1 { font-size: 1.1rem; margin: 0; }
#status::before { content: "● "; }
#status.ok { color: var(--ok); } #status.bad { color: var(--bad); }
#problem { margin: .8rem 1.2rem 0; padding: .5rem .8rem; border: 1px solid var(--bad); color: var(--bad); border-radius: 6px; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; padding: 1rem 1.2rem; }
@media (max-width: 1000px) { main { grid-template-columns: minmax(0, 1fr); } }
section.wide { grid-column: 1 / -1; }
h2 { font-size: .95rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 .5rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .7rem .9rem; margin-bottom: .8rem; }
.card.ended { opacity: .72; }
.card header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.agent-id { font-weight: 700; font-size: 14px; }
.alias { font-weight: 600; }
.alias.unnamed { color: var(--muted); font-weight: 400; font-style: italic; }
.badge { font-size: 11px; padding: 0 .45rem; border-radius: 999px; border: 1px solid currentColor; white-space: nowrap; }
.badge.live, .badge.running { color: var(--ok); } .badge.ended, .badge.exited { color: var(--muted); }
.badge.stale, .badge.lost, .badge.killed, .badge.timeout, .badge.failed { color: var(--bad); }
.badge.operator { color: var(--op); }
.meta { color: var(--muted); font-size: 12.5px; }
.spacer { flex: 1; }
button { font: inherit; color: inherit; background: transparent; border: 1px solid var(--line); border-radius: 6px; padding: .15rem .6rem; cursor: pointer; }
button:hover { border-color: var(--accent); } button:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
button.icon { border-color: transparent; padding: 0 .35rem; }
button.danger { color: var(--bad); border-color: var(--bad); }
input[type=text] { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .2rem .45rem; min-width: 0; }
form.inline { display: inline-flex; gap: .35rem; align-items: center; }
form.inline input[type=text] { width: 18rem; }
.error { color: var(--bad); margin: .3rem 0 0; font-size: 12.5px; }
.error:empty { display: none; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .2rem .45rem; border-top: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; border-top: 0; }
table.timeline { margin-top: .5rem; }
table.timeline td.summary { max-width: 0; width: 50%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
table.timeline td.when, table.timeline td.duration { white-space: nowrap; color: var(--muted); }
table.timeline td.result { white-space: nowrap; max-width: 14rem; overflow: hidden; text-overflow: ellipsis; }
tr.operator td.tool { color: var(--op); }
tr.error td.result, tr.interrupted td.result { color: var(--bad); }
tr.running td.result { color: var(--ok); }
.empty { color: var(--muted); font-style: italic; }
pre.tail { background: var(--pre-bg); color: var(--pre-text); border-radius: 6px; padding: .5rem .6rem; margin: .5rem 0; height: 14rem; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.tail.unavailable { color: var(--warn); }
.card.ended pre.tail { height: auto; max-height: 8rem; }
form.send { display: flex; gap: .4rem; align-items: center; }
form.send input[type=text] { flex: 1; }
form.send label { display: inline-flex; gap: .2rem; align-items: center; color: var(--muted); }
`;

// The browser script, read once at startup from its files (typechecked with checkJs; the build
// copies them beside this module): the DOM helpers, then the board. One inline script under the
// response's nonce, so there is no hash to keep in step.
export const SCRIPT_FILES = ['dom.js', 'board.js'];
const SCRIPT = SCRIPT_FILES.map((name) => {
  const file = fileURLToPath(new URL(`./browser/${name}`, import.meta.url));
  const text = fs.readFileSync(file, 'utf8');
  if (/<\/script/i.test(text)) throw new Error(`${file} contains "</script", which would end the inline script early`);
  return text;
}).join('\n');

export interface PageOptions {
  nonce: string; // fresh for every response: the CSP admits only the script and style carrying it
  csrfToken: string;
}

export function renderPage(options: PageOptions): string {
  const nonce = escapeHtml(options.nonce);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="zodex-csrf" content="${escapeHtml(options.csrfToken)}">
<title>zodex Liveboard</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header class="top"><h1>zodex Liveboard</h1><span id="status" role="status" aria-live="polite">connecting…</span><a href="/grants">OAuth clients</a></header>
<p id="problem" role="alert" hidden></p>
<main>
<section class="wide" aria-labelledby="servers-title">
<h2 id="servers-title">Servers</h2>
<div class="card"><table aria-labelledby="servers-title" data-testid="servers">
<thead><tr><th>Server</th><th>PID</th><th>Host</th><th>Transport</th><th>Mode</th><th>Started</th><th>State</th></tr></thead>
<tbody id="servers-body"></tbody></table>
<p id="no-servers" class="empty">No zodexd has used this state directory yet.</p></div>
</section>
<section aria-labelledby="agents-title">
<h2 id="agents-title">Agents</h2>
<div id="agents"></div>
<p id="no-agents" class="empty">No agents yet: each MCP conversation becomes one at its first tool call.</p>
</section>
<section aria-labelledby="sessions-title">
<h2 id="sessions-title">Sessions</h2>
<div id="sessions"></div>
<p id="no-sessions" class="empty">No running sessions.</p>
</section>
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
}
