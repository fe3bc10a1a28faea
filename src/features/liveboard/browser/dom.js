// @ts-check
// The Liveboard page's DOM and fetch helpers, run first in the page's one inline script (page.ts
// puts board.js after it); everything is reached through the one global `dom`.
'use strict';
const dom = (() => {
  /** @param {string} id @returns {HTMLElement} an element the page's HTML always has */
  const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const csrf = document.querySelector('meta[name="zodex-csrf"]')?.getAttribute('content') ?? '';
  /**
   * @template {keyof HTMLElementTagNameMap} K
   * @param {K} tag
   * @param {Record<string, unknown>} [props] text, class, on<event> handlers, else attributes
   * @param {(Node | string | null | undefined)[]} [children]
   * @returns {HTMLElementTagNameMap[K]}
   */
  function h(tag, props, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = String(value);
      else if (key === 'class') node.className = String(value);
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children || []) if (child !== null && child !== undefined) node.append(child);
    return node;
  }
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  /** @param {number} ms */
  function clock(ms) {
    const d = new Date(ms);
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
  }
  /** @param {number} ms */
  function duration(ms) {
    if (ms < 60000) return (Math.max(0, ms) / 1000).toFixed(1) + 's';
    const s = Math.floor(ms / 1000);
    return s < 3600 ? Math.floor(s / 60) + 'm' + pad(s % 60) + 's' : Math.floor(s / 3600) + 'h' + pad(Math.floor(s / 60) % 60) + 'm';
  }
  // Puts nodes into container in this order, moving only what is out of place (a moved node
  // would lose the focus of an input inside it).
  /** @param {HTMLElement} container @param {HTMLElement[]} nodes */
  function place(container, nodes) {
    nodes.forEach((node, index) => {
      if (container.children[index] !== node) container.insertBefore(node, container.children[index] || null);
    });
    while (container.children.length > nodes.length) container.lastElementChild?.remove();
  }
  /** @param {string} path @param {unknown} body @returns {Promise<{ error?: string }>} */
  async function post(path, body) {
    const response = await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { 'Content-Type': 'application/json', 'X-Zodex-Liveboard': csrf },
      body: JSON.stringify(body),
    });
    /** @type {{ error?: string }} */
    let data = {};
    try {
      data = await response.json();
    } catch (_) {
      data = {};
    }
    if (!response.ok) throw new Error(data.error || response.status + ' ' + response.statusText);
    return data;
  }
  return { byId, h, pad, clock, duration, place, post };
})();
