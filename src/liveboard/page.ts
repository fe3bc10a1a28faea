// The Liveboard page: one self-contained HTML document, inline CSS and vanilla JS, no framework,
// no build step, nothing fetched from anywhere but this board (it works offline). The script runs
// under a nonce-based CSP; the CSRF token it sends with every action sits in a <meta> tag.
// Data flow in the page: EventSource('/events') -> snapshot / update / tail -> keyed DOM updates
// (cards are reused, so an alias being edited or an input being typed survives every update).

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

const SCRIPT = String.raw`
'use strict';
(() => {
  const csrf = document.querySelector('meta[name="zodex-csrf"]').getAttribute('content');
  const state = { servers: [], agents: [], sessions: [], timelines: {}, problem: null };
  const tails = new Map(); // session id -> { text, end, error }
  const agentCards = new Map();
  const sessionCards = new Map();
  const TAIL_CHARS = 16384;
  // Sessions this page saw running stay listed a while after they end, with their final output;
  // commands that ended within their first call are on the timelines only.
  const seenRunning = new Set();
  const ENDED_SESSIONS_SHOWN = 5;
  const ENDED_SESSION_MS = 10 * 60 * 1000;

  // ---- small helpers ----
  function h(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = value;
      else if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children || []) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  const pad = (n) => String(n).padStart(2, '0');
  function clock(ms) { const d = new Date(ms); return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()); }
  function duration(ms) {
    if (ms < 60000) return (Math.max(0, ms) / 1000).toFixed(1) + 's';
    const s = Math.floor(ms / 1000);
    return s < 3600 ? Math.floor(s / 60) + 'm' + pad(s % 60) + 's' : Math.floor(s / 3600) + 'h' + pad(Math.floor(s / 60) % 60) + 'm';
  }
  function keepTail(text) { return text.length > TAIL_CHARS ? text.slice(text.length - TAIL_CHARS) : text; }
  // Puts nodes into container in this order, moving only what is out of place (a moved node
  // would lose the focus of an input inside it).
  function place(container, nodes) {
    nodes.forEach((node, index) => { if (container.children[index] !== node) container.insertBefore(node, container.children[index] || null); });
    while (container.children.length > nodes.length) container.lastElementChild.remove();
  }
  async function post(path, body) {
    const response = await fetch(path, {
      method: 'POST', credentials: 'same-origin', cache: 'no-store',
      headers: { 'Content-Type': 'application/json', 'X-Zodex-Liveboard': csrf },
      body: JSON.stringify(body),
    });
    let data = {};
    try { data = await response.json(); } catch (_) { data = {}; }
    if (!response.ok) throw new Error(data.error || response.status + ' ' + response.statusText);
    return data;
  }
  const agentById = (id) => state.agents.find((agent) => agent.agentId === id);
  const agentLabel = (id) => { const agent = agentById(id); return agent && agent.alias ? id + ' · ' + agent.alias : id; };

  // ---- servers ----
  function serverState(server) { return server.live ? 'live' : server.endedAt !== null ? 'ended' : 'stale'; }
  let serversShown = null;
  function renderServers() {
    if (state.servers === serversShown) return; // unchanged since the last render
    serversShown = state.servers;
    const body = document.getElementById('servers-body');
    const rows = state.servers.slice().sort((a, b) => (b.live - a.live) || (b.startedAt - a.startedAt)).map((server) => {
      const status = serverState(server);
      return h('tr', { 'data-testid': 'server-' + server.serverId, class: status }, [
        h('td', {}, [h('code', { text: server.serverId })]),
        h('td', { text: String(server.pid) }),
        h('td', { text: server.hostname }),
        h('td', { text: server.transport }),
        h('td', { text: server.mode }),
        h('td', { text: clock(server.startedAt), title: new Date(server.startedAt).toLocaleString() }),
        h('td', {}, [h('span', { class: 'badge ' + status, text: status })]),
      ]);
    });
    body.replaceChildren(...rows);
    document.getElementById('no-servers').hidden = rows.length > 0;
  }

  // ---- agents ----
  function timelineRow(row) {
    const operator = row.actor === 'operator';
    const running = row.status === 'running';
    let result;
    if (operator) result = 'done';
    else if (running) result = 'running';
    else if (row.status === 'interrupted') result = 'interrupted (its zodexd ended)';
    else if (row.exitCode !== null && row.exitCode !== undefined) result = 'exit ' + row.exitCode + (row.terminationReason && row.terminationReason !== 'exit' ? ' (' + row.terminationReason + ')' : '');
    else if (row.terminationReason) result = row.terminationReason;
    else result = row.resultSummary || (row.isError ? 'error' : 'ok');
    const action = operator ? row.tool.replace(/^operator\./, '') : row.tool;
    const summary = operator ? (row.summary || '') + (row.sessionId ? ' → ' + row.sessionId : '') : row.summary;
    const durationCell = h('td', { class: 'duration', text: running ? duration(Date.now() - row.startedAt) : row.durationMs === null ? '' : duration(row.durationMs) });
    if (running) durationCell.dataset.since = String(row.startedAt);
    return h('tr', { class: [row.status, operator ? 'operator' : ''].join(' '), 'data-testid': 'timeline-row' }, [
      h('td', { class: 'when', text: clock(row.startedAt), title: new Date(row.startedAt).toLocaleString() }),
      h('td', { class: 'tool' }, operator ? [h('span', { class: 'badge operator', text: 'operator' }), ' ' + action] : [action]),
      h('td', { class: 'summary mono', text: summary, title: [summary, row.workdir ? 'in ' + row.workdir : ''].filter(Boolean).join('\n') }),
      durationCell,
      h('td', { class: 'result', text: result, title: row.resultSummary || '' }),
    ]);
  }

  function agentCard(id) {
    const aliasText = h('span', { class: 'alias', 'data-testid': 'alias' });
    const input = h('input', { type: 'text', maxlength: '80', 'aria-label': 'New alias for agent ' + id, placeholder: '2–7 words, empty clears' });
    const error = h('p', { class: 'error', role: 'alert' });
    const editor = h('form', { class: 'inline', hidden: true }, [
      input,
      h('button', { type: 'submit', 'aria-label': 'Save alias of agent ' + id, text: 'Save' }),
      h('button', { type: 'button', 'aria-label': 'Cancel renaming agent ' + id, text: 'Cancel', onclick: () => close() }),
    ]);
    const pencil = h('button', { type: 'button', class: 'icon', 'aria-label': 'Rename agent ' + id, title: 'Rename', text: '✎', onclick: () => open() });
    const badge = h('span', { class: 'badge' });
    const meta = h('span', { class: 'meta' });
    const body = h('tbody');
    const empty = h('p', { class: 'empty', text: 'No tool calls yet.' });
    const table = h('table', { class: 'timeline', 'aria-label': 'Timeline of agent ' + id }, [
      h('thead', {}, [h('tr', {}, ['Time', 'Tool', 'Summary', 'Duration', 'Result'].map((label) => h('th', { text: label })))]),
      body,
    ]);
    const root = h('article', { class: 'card agent', 'data-testid': 'agent-' + id, 'aria-label': 'Agent ' + id }, [
      h('header', {}, [h('code', { class: 'agent-id', text: id }), aliasText, pencil, editor, h('span', { class: 'spacer' }), badge]),
      h('div', { class: 'meta' }, [meta]),
      error,
      table,
      empty,
    ]);
    function open() {
      const agent = agentById(id);
      input.value = agent ? agent.alias : '';
      editor.hidden = false; aliasText.hidden = true; pencil.hidden = true;
      error.textContent = '';
      input.focus(); input.select();
    }
    function close() {
      editor.hidden = true; aliasText.hidden = false; pencil.hidden = false;
      pencil.focus();
    }
    editor.addEventListener('submit', async (event) => {
      event.preventDefault();
      const alias = input.value;
      try {
        await post('/api/alias', { agentId: id, alias });
        aliasText.textContent = alias.trim() || 'unnamed';
        close();
      } catch (failure) { error.textContent = 'Rename failed: ' + failure.message; }
    });
    input.addEventListener('keydown', (event) => { if (event.key === 'Escape') { event.preventDefault(); close(); } });
    let rowsShown = null;
    function update(agent, rows) {
      aliasText.textContent = agent.alias || 'unnamed';
      aliasText.classList.toggle('unnamed', !agent.alias);
      const status = agent.live ? 'live' : agent.endedAt !== null ? 'ended' : 'lost';
      badge.className = 'badge ' + status; badge.textContent = status;
      root.classList.toggle('ended', !agent.live);
      meta.textContent = 'server ' + agent.serverId + ' · started ' + clock(agent.startedAt) + ' · ' + agent.invocations + ' call' + (agent.invocations === 1 ? '' : 's') +
        (agent.aliasSetBy ? ' · alias set by ' + (agent.aliasSetBy === 'operator' ? 'the operator' : 'the agent') : '');
      if (rows !== rowsShown) { // rebuilt only when its rows changed (a selection elsewhere survives)
        rowsShown = rows;
        body.replaceChildren(...rows.slice().reverse().map(timelineRow)); // newest first
        table.hidden = rows.length === 0; empty.hidden = rows.length > 0;
      }
    }
    return { root, update };
  }

  function renderAgents() {
    const ordered = state.agents.slice().sort((a, b) => (b.live - a.live) || (b.startedAt - a.startedAt));
    const nodes = ordered.map((agent) => {
      let card = agentCards.get(agent.agentId);
      if (!card) { card = agentCard(agent.agentId); agentCards.set(agent.agentId, card); }
      card.update(agent, state.timelines[agent.agentId] || []);
      return card.root;
    });
    for (const id of [...agentCards.keys()]) if (!agentById(id)) { agentCards.delete(id); delete state.timelines[id]; }
    place(document.getElementById('agents'), nodes);
    document.getElementById('no-agents').hidden = nodes.length > 0;
  }

  // ---- sessions ----
  function sessionStatus(session) {
    if (session.state === 'running') return { label: 'running', cls: 'running' };
    if (session.state === 'lost') return { label: 'lost (its zodexd ended)', cls: 'lost' };
    const reason = session.terminationReason || 'exit';
    if (reason === 'exit') return { label: 'exited ' + (session.exitCode === null ? '' : session.exitCode), cls: 'exited' };
    return { label: reason, cls: reason };
  }

  function sessionCard(id) {
    const cmd = h('code', { class: 'cmd' });
    const badge = h('span', { class: 'badge' });
    const meta = h('div', { class: 'meta' });
    const pre = h('pre', { class: 'tail', 'data-testid': 'tail', 'aria-label': 'Output of session ' + id, tabindex: '0', 'aria-live': 'off' });
    const input = h('input', { type: 'text', 'aria-label': 'Input for session ' + id, placeholder: 'type into the session…', autocomplete: 'off', spellcheck: 'false' });
    const enter = h('input', { type: 'checkbox', checked: true, 'aria-label': 'Append Enter' });
    const error = h('p', { class: 'error', role: 'alert' });
    const killButton = h('button', { type: 'button', class: 'danger', 'aria-label': 'Kill session ' + id, text: 'Kill' });
    const form = h('form', { class: 'send' }, [
      input,
      h('label', { title: 'Append a newline (Enter) to what is sent' }, [enter, 'Enter']),
      h('button', { type: 'submit', 'aria-label': 'Send input to session ' + id, text: 'Send' }),
      killButton,
    ]);
    const root = h('article', { class: 'card session', 'data-testid': 'session-' + id, 'aria-label': 'Session ' + id }, [
      h('header', {}, [cmd, h('span', { class: 'spacer' }), badge]),
      meta, pre, form, error,
    ]);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const chars = input.value + (enter.checked ? '\n' : '');
      if (chars === '') return;
      try {
        await post('/api/sessions/' + encodeURIComponent(id) + '/input', { chars });
        input.value = '';
        error.textContent = '';
      } catch (failure) { error.textContent = 'Input failed: ' + failure.message; }
      input.focus();
    });
    killButton.addEventListener('click', async () => {
      if (!window.confirm('Kill session ' + id + ' (' + cmd.textContent + ')? Every process of the command is ended.')) return;
      try {
        await post('/api/sessions/' + encodeURIComponent(id) + '/kill', {});
        error.textContent = '';
      } catch (failure) { error.textContent = 'Kill failed: ' + failure.message; }
    });
    function update(session) {
      cmd.textContent = session.cmd;
      cmd.title = session.cmd;
      const status = sessionStatus(session);
      badge.className = 'badge ' + status.cls; badge.textContent = status.label;
      meta.replaceChildren('in ', h('code', { text: session.cwd }), ' · agent ', h('code', { text: agentLabel(session.agentId) }),
        ' · started ' + clock(session.startedAt) + (session.pid ? ' · pid ' + session.pid : ''));
      const ended = session.state !== 'running';
      if (ended && !root.classList.contains('ended')) {
        root.classList.add('ended'); // the tail shrinks: keep its last lines in view
        pre.scrollTop = pre.scrollHeight;
      }
      form.hidden = ended;
    }
    function showTail(tail) {
      const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 8;
      pre.classList.toggle('unavailable', Boolean(tail.error) && !tail.text);
      pre.textContent = tail.text ? tail.text.replace(/\r/g, '\n') : tail.error ? 'output unavailable: ' + tail.error : tail.end ? '(no output)' : '';
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    }
    return { root, update, showTail };
  }

  function renderSessions() {
    const now = Date.now();
    const running = state.sessions.filter((s) => s.state === 'running').sort((a, b) => b.startedAt - a.startedAt);
    for (const session of running) seenRunning.add(session.sessionId);
    const ended = state.sessions.filter((s) => s.state !== 'running' && seenRunning.has(s.sessionId) && (s.state === 'lost' || now - (s.endedAt || 0) < ENDED_SESSION_MS))
      .sort((a, b) => (b.endedAt || b.startedAt) - (a.endedAt || a.startedAt)).slice(0, ENDED_SESSIONS_SHOWN);
    const shown = running.concat(ended);
    const nodes = shown.map((session) => {
      let card = sessionCards.get(session.sessionId);
      if (!card) {
        card = sessionCard(session.sessionId);
        sessionCards.set(session.sessionId, card);
        const tail = tails.get(session.sessionId);
        if (tail) card.showTail(tail);
      }
      card.update(session);
      return card.root;
    });
    const ids = new Set(shown.map((s) => s.sessionId));
    for (const id of [...sessionCards.keys()]) if (!ids.has(id)) sessionCards.delete(id);
    place(document.getElementById('sessions'), nodes);
    document.getElementById('no-sessions').hidden = nodes.length > 0;
  }

  function applyTail(message) {
    const tail = tails.get(message.sessionId) || { text: '', end: null, error: null };
    if (message.replace) tail.text = '';
    if (message.gap) tail.text += '\n… (output skipped) …\n';
    if (message.text) { tail.text = keepTail(tail.text + message.text); tail.error = null; }
    if (message.end) tail.end = message.end;
    if (message.error !== undefined) tail.error = message.error;
    tails.set(message.sessionId, tail);
    const card = sessionCards.get(message.sessionId);
    if (card) card.showTail(tail);
  }

  function render() {
    const problem = document.getElementById('problem');
    problem.textContent = state.problem || '';
    problem.hidden = !state.problem;
    renderServers();
    renderAgents();
    renderSessions();
  }

  // ---- live feed ----
  function setStatus(text, cls) {
    const status = document.getElementById('status');
    status.textContent = text;
    status.className = cls;
  }
  function connect() {
    const source = new EventSource('/events');
    source.addEventListener('open', () => setStatus('live', 'ok'));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) setStatus('disconnected: reload the page', 'bad');
      else setStatus('reconnecting…', 'bad');
    });
    source.addEventListener('snapshot', (event) => {
      const data = JSON.parse(event.data);
      Object.assign(state, data);
      tails.clear();
      render();
    });
    source.addEventListener('update', (event) => {
      const data = JSON.parse(event.data);
      for (const key of ['servers', 'agents', 'sessions', 'problem']) if (key in data) state[key] = data[key];
      if (data.timelines) Object.assign(state.timelines, data.timelines);
      render();
    });
    source.addEventListener('tail', (event) => applyTail(JSON.parse(event.data)));
  }

  // Durations of calls still running tick every second.
  setInterval(() => {
    for (const cell of document.querySelectorAll('td[data-since]')) cell.textContent = duration(Date.now() - Number(cell.dataset.since));
  }, 1000);
  connect();
})();
`;

export interface PageOptions {
  nonce: string; // fresh for every response: the CSP admits only the script and style carrying it
  csrfToken: string;
}

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function renderPage(options: PageOptions): string {
  const nonce = escapeAttribute(options.nonce);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="zodex-csrf" content="${escapeAttribute(options.csrfToken)}">
<title>zodex Liveboard</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header class="top"><h1>zodex Liveboard</h1><span id="status" role="status" aria-live="polite">connecting…</span></header>
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
