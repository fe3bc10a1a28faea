// @ts-check
// The Liveboard's browser script (served inline by page.ts under the response's CSP nonce,
// after dom.js, whose helpers it takes from the one global `dom`).
// Data flow: EventSource('/events') -> snapshot / update / tail -> keyed DOM updates (cards are
// reused, so an alias being edited or an input being typed survives every update).
// The row shapes are those of src/features/store/types.ts as feed.ts sends them (JSON).

/**
 * @typedef {{ serverId: string, pid: number, hostname: string, transport: string, mode: string,
 *   startedAt: number, heartbeatAt: number, endedAt: number | null, live: boolean }} Server
 * @typedef {{ agentId: string, alias: string, aliasSetAt: number | null, aliasSetBy: 'agent' | 'operator' | null,
 *   serverId: string, startedAt: number, endedAt: number | null, live: boolean, invocations: number,
 *   lastInvocationAt: number | null }} Agent
 * @typedef {{ sessionId: string, agentId: string, agentAlias: string, serverId: string, pid: number | null,
 *   cmd: string, cwd: string, startedAt: number, endedAt: number | null, exitCode: number | null,
 *   terminationReason: string | null, state: 'running' | 'exited' | 'lost' }} Session
 * @typedef {{ kind: string, actor: 'agent' | 'operator', tool: string, workdir: string | null, summary: string,
 *   startedAt: number, durationMs: number | null, status: 'ok' | 'error' | 'running' | 'interrupted',
 *   resultSummary: string | null, isError: boolean | null, exitCode: number | null,
 *   terminationReason: string | null, sessionId: string | null }} TimelineRow
 * @typedef {{ servers: Server[], agents: Agent[], sessions: Session[],
 *   timelines: Record<string, TimelineRow[]>, problem: string | null }} BoardState
 * @typedef {{ text: string, end: unknown, error: string | null }} Tail
 * @typedef {{ sessionId: string, replace?: boolean, gap?: boolean, text?: string, end?: unknown,
 *   error?: string | null }} TailMessage
 * @typedef {{ root: HTMLElement, update: (agent: Agent, rows: TimelineRow[]) => void }} AgentCard
 * @typedef {{ root: HTMLElement, update: (session: Session) => void, showTail: (tail: Tail) => void }} SessionCard
 */

(() => {
  const { byId, h, clock, duration, place, post } = dom;
  /** @type {BoardState} */
  const state = { servers: [], agents: [], sessions: [], timelines: {}, problem: null };
  /** @type {Map<string, Tail>} */
  const tails = new Map();
  /** @type {Map<string, AgentCard>} */
  const agentCards = new Map();
  /** @type {Map<string, SessionCard>} */
  const sessionCards = new Map();
  const TAIL_CHARS = 16384;
  // Sessions this page saw running stay listed a while after they end, with their final output;
  // commands that ended within their first call are on the timelines only.
  /** @type {Set<string>} */
  const seenRunning = new Set();
  const ENDED_SESSIONS_SHOWN = 5;
  const ENDED_SESSION_MS = 10 * 60 * 1000;
  /** @param {string} text */
  function keepTail(text) {
    return text.length > TAIL_CHARS ? text.slice(text.length - TAIL_CHARS) : text;
  }

  /** @param {string} id */
  const agentById = (id) => state.agents.find((agent) => agent.agentId === id);
  /** @param {string} id */
  const agentLabel = (id) => {
    const agent = agentById(id);
    return agent && agent.alias ? id + ' · ' + agent.alias : id;
  };

  // ---- servers ----
  /** @param {Server} server */
  function serverState(server) {
    return server.live ? 'live' : server.endedAt !== null ? 'ended' : 'stale';
  }
  /** @type {Server[] | null} */
  let serversShown = null;
  function renderServers() {
    if (state.servers === serversShown) return; // unchanged since the last render
    serversShown = state.servers;
    const body = byId('servers-body');
    const rows = state.servers
      .slice()
      .sort((a, b) => Number(b.live) - Number(a.live) || b.startedAt - a.startedAt)
      .map((server) => {
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
    byId('no-servers').hidden = rows.length > 0;
  }

  // ---- agents ----
  /** @param {TimelineRow} row */
  function timelineRow(row) {
    const operator = row.actor === 'operator';
    const running = row.status === 'running';
    let result;
    if (operator) result = 'done';
    else if (running) result = 'running';
    else if (row.status === 'interrupted') result = 'interrupted (its zodexd ended)';
    else if (row.exitCode !== null && row.exitCode !== undefined)
      result = 'exit ' + row.exitCode + (row.terminationReason && row.terminationReason !== 'exit' ? ' (' + row.terminationReason + ')' : '');
    else if (row.terminationReason) result = row.terminationReason;
    else result = row.resultSummary || (row.isError ? 'error' : 'ok');
    const action = operator ? row.tool.replace(/^operator\./, '') : row.tool;
    const summary = operator ? (row.summary || '') + (row.sessionId ? ' → ' + row.sessionId : '') : row.summary;
    const durationCell = h('td', {
      class: 'duration',
      text: running ? duration(Date.now() - row.startedAt) : row.durationMs === null ? '' : duration(row.durationMs),
    });
    if (running) durationCell.dataset.since = String(row.startedAt);
    return h('tr', { class: [row.status, operator ? 'operator' : ''].join(' '), 'data-testid': 'timeline-row' }, [
      h('td', { class: 'when', text: clock(row.startedAt), title: new Date(row.startedAt).toLocaleString() }),
      h('td', { class: 'tool' }, operator ? [h('span', { class: 'badge operator', text: 'operator' }), ' ' + action] : [action]),
      h('td', { class: 'summary mono', text: summary, title: [summary, row.workdir ? 'in ' + row.workdir : ''].filter(Boolean).join('\n') }),
      durationCell,
      h('td', { class: 'result', text: result, title: row.resultSummary || '' }),
    ]);
  }

  /** @param {string} id @returns {AgentCard} */
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
      h('thead', {}, [
        h(
          'tr',
          {},
          ['Time', 'Tool', 'Summary', 'Duration', 'Result'].map((label) => h('th', { text: label })),
        ),
      ]),
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
      editor.hidden = false;
      aliasText.hidden = true;
      pencil.hidden = true;
      error.textContent = '';
      input.focus();
      input.select();
    }
    function close() {
      editor.hidden = true;
      aliasText.hidden = false;
      pencil.hidden = false;
      pencil.focus();
    }
    editor.addEventListener('submit', async (event) => {
      event.preventDefault();
      const alias = input.value;
      try {
        await post('/api/alias', { agentId: id, alias });
        aliasText.textContent = alias.trim() || 'unnamed';
        close();
      } catch (failure) {
        error.textContent = 'Rename failed: ' + /** @type {Error} */ (failure).message;
      }
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        close();
      }
    });
    /** @type {TimelineRow[] | null} */
    let rowsShown = null;
    /** @param {Agent} agent @param {TimelineRow[]} rows */
    function update(agent, rows) {
      aliasText.textContent = agent.alias || 'unnamed';
      aliasText.classList.toggle('unnamed', !agent.alias);
      const status = agent.live ? 'live' : agent.endedAt !== null ? 'ended' : 'lost';
      badge.className = 'badge ' + status;
      badge.textContent = status;
      root.classList.toggle('ended', !agent.live);
      meta.textContent =
        'server ' +
        agent.serverId +
        ' · started ' +
        clock(agent.startedAt) +
        ' · ' +
        agent.invocations +
        ' call' +
        (agent.invocations === 1 ? '' : 's') +
        (agent.aliasSetBy ? ' · alias set by ' + (agent.aliasSetBy === 'operator' ? 'the operator' : 'the agent') : '');
      if (rows !== rowsShown) {
        // rebuilt only when its rows changed (a selection elsewhere survives)
        rowsShown = rows;
        body.replaceChildren(...rows.slice().reverse().map(timelineRow)); // newest first
        table.hidden = rows.length === 0;
        empty.hidden = rows.length > 0;
      }
    }
    return { root, update };
  }

  function renderAgents() {
    const ordered = state.agents.slice().sort((a, b) => Number(b.live) - Number(a.live) || b.startedAt - a.startedAt);
    const nodes = ordered.map((agent) => {
      let card = agentCards.get(agent.agentId);
      if (!card) {
        card = agentCard(agent.agentId);
        agentCards.set(agent.agentId, card);
      }
      card.update(agent, state.timelines[agent.agentId] || []);
      return card.root;
    });
    for (const id of [...agentCards.keys()])
      if (!agentById(id)) {
        agentCards.delete(id);
        delete state.timelines[id];
      }
    place(byId('agents'), nodes);
    byId('no-agents').hidden = nodes.length > 0;
  }

  // ---- sessions ----
  /** @param {Session} session */
  function sessionStatus(session) {
    if (session.state === 'running') return { label: 'running', cls: 'running' };
    if (session.state === 'lost') return { label: 'lost (its zodexd ended)', cls: 'lost' };
    const reason = session.terminationReason || 'exit';
    if (reason === 'exit') return { label: 'exited ' + (session.exitCode === null ? '' : session.exitCode), cls: 'exited' };
    return { label: reason, cls: reason };
  }

  /** @param {string} id @returns {SessionCard} */
  function sessionCard(id) {
    const cmd = h('code', { class: 'cmd' });
    const badge = h('span', { class: 'badge' });
    const meta = h('div', { class: 'meta' });
    const pre = h('pre', { class: 'tail', 'data-testid': 'tail', 'aria-label': 'Output of session ' + id, tabindex: '0', 'aria-live': 'off' });
    const input = h('input', {
      type: 'text',
      'aria-label': 'Input for session ' + id,
      placeholder: 'type into the session…',
      autocomplete: 'off',
      spellcheck: 'false',
    });
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
      meta,
      pre,
      form,
      error,
    ]);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const chars = input.value + (enter.checked ? '\n' : '');
      if (chars === '') return;
      try {
        await post('/api/sessions/' + encodeURIComponent(id) + '/input', { chars });
        input.value = '';
        error.textContent = '';
      } catch (failure) {
        error.textContent = 'Input failed: ' + /** @type {Error} */ (failure).message;
      }
      input.focus();
    });
    killButton.addEventListener('click', async () => {
      if (!window.confirm('Kill session ' + id + ' (' + cmd.textContent + ')? Every process of the command is ended.')) return;
      try {
        await post('/api/sessions/' + encodeURIComponent(id) + '/kill', {});
        error.textContent = '';
      } catch (failure) {
        error.textContent = 'Kill failed: ' + /** @type {Error} */ (failure).message;
      }
    });
    /** @param {Session} session */
    function update(session) {
      cmd.textContent = session.cmd;
      cmd.title = session.cmd;
      const status = sessionStatus(session);
      badge.className = 'badge ' + status.cls;
      badge.textContent = status.label;
      meta.replaceChildren(
        'in ',
        h('code', { text: session.cwd }),
        ' · agent ',
        h('code', { text: agentLabel(session.agentId) }),
        ' · started ' + clock(session.startedAt) + (session.pid ? ' · pid ' + session.pid : ''),
      );
      const ended = session.state !== 'running';
      if (ended && !root.classList.contains('ended')) {
        root.classList.add('ended'); // the tail shrinks: keep its last lines in view
        pre.scrollTop = pre.scrollHeight;
      }
      form.hidden = ended;
    }
    /** @param {Tail} tail */
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
    const ended = state.sessions
      .filter((s) => s.state !== 'running' && seenRunning.has(s.sessionId) && (s.state === 'lost' || now - (s.endedAt || 0) < ENDED_SESSION_MS))
      .sort((a, b) => (b.endedAt || b.startedAt) - (a.endedAt || a.startedAt))
      .slice(0, ENDED_SESSIONS_SHOWN);
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
    place(byId('sessions'), nodes);
    byId('no-sessions').hidden = nodes.length > 0;
  }

  /** @param {TailMessage} message */
  function applyTail(message) {
    const tail = tails.get(message.sessionId) || { text: '', end: null, error: null };
    if (message.replace) tail.text = '';
    if (message.gap) tail.text += '\n… (output skipped) …\n';
    if (message.text) {
      tail.text = keepTail(tail.text + message.text);
      tail.error = null;
    }
    if (message.end) tail.end = message.end;
    if (message.error !== undefined) tail.error = message.error;
    tails.set(message.sessionId, tail);
    const card = sessionCards.get(message.sessionId);
    if (card) card.showTail(tail);
  }

  function render() {
    const problem = byId('problem');
    problem.textContent = state.problem || '';
    problem.hidden = !state.problem;
    renderServers();
    renderAgents();
    renderSessions();
  }

  // ---- live feed ----
  /** @param {string} text @param {string} cls */
  function setStatus(text, cls) {
    const status = byId('status');
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
      for (const key of /** @type {const} */ (['servers', 'agents', 'sessions', 'problem'])) if (key in data) state[key] = data[key];
      if (data.timelines) Object.assign(state.timelines, data.timelines);
      render();
    });
    source.addEventListener('tail', (event) => applyTail(JSON.parse(event.data)));
  }

  // Durations of calls still running tick every second.
  setInterval(() => {
    for (const cell of document.querySelectorAll('td[data-since]'))
      if (cell instanceof HTMLElement) cell.textContent = duration(Date.now() - Number(cell.dataset.since));
  }, 1000);
  connect();
})();
