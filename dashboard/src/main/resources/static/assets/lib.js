// Shared helpers of the dashboard: building DOM safely, calling the API, formatting, the 5-second undo.

/** Builds an element: h('button', { class: 'ok', onclick }, 'Approve'). Text is always set as text, never HTML. */
export function h(tag, attrs = {}, ...children) {
  const svg = tag.startsWith('svg:');
  const el = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.setAttribute('class', value);
    else if (key === 'text') el.textContent = value;
    else if (!svg && key in el && typeof value !== 'string') el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of an element. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** An error from the API: its status and the server's message. */
export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/** Calls the API with the session cookie; answers the parsed body or throws an ApiError. */
export async function api(path, { method = 'GET', body, headers = {} } = {}) {
  let response;
  try {
    response = await fetch(path, {
      method, credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.');
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
  if (!response.ok) {
    const message = (parsed && parsed.error) || `${response.status} ${response.statusText}`;
    if (response.status === 401 && session.onSignedOut && !path.startsWith('/api/v1/auth/')) session.onSignedOut();
    throw new ApiError(response.status, message, parsed);
  }
  return parsed;
}

// ---- who is signed in -----------------------------------------------------------------------------------------

const RANK = { viewer: 1, approver: 2, operator: 3 };

/** The caller as GET /api/v1/auth/me answers, once signed in. */
export const session = { me: null, onSignedOut: null };

/** Whether the signed-in caller has at least this role. */
export function can(role) {
  return !!session.me && (RANK[session.me.role] || 0) >= RANK[role];
}

// ---- formatting -----------------------------------------------------------------------------------------------

/** Money in the order's currency, in the viewer's locale. */
export function money(amount, currency = 'USD') {
  if (amount === undefined || amount === null || amount === '') return '—';
  const value = Number(amount);
  if (Number.isNaN(value)) return String(amount);
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD' }).format(value);
  } catch {
    return `${value.toFixed(2)} ${currency}`;
  }
}

/** An epoch-milliseconds time in the viewer's time zone. */
export function time(ms) {
  if (!ms) return '—';
  return new Date(Number(ms)).toLocaleString();
}

/** A <time> element for epoch milliseconds. */
export function timeEl(ms) {
  return ms ? h('time', { datetime: new Date(Number(ms)).toISOString() }, time(ms)) : '—';
}

/** Fills a title template like "Approve order {{order.id}}" from the order's live state, as far as it can. */
export function fill(template, state) {
  return String(template || '').replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path) => {
    const value = path.split('.').reduce((v, k) => (v == null ? v : v[k]), { order: state.order, vars: state.vars });
    return value == null ? '' : String(value);
  });
}

/** How long ago an epoch-milliseconds time was, in words: "12 s ago", "3 min ago", "2 h ago", "4 d ago". */
export function ago(ms, now = Date.now()) {
  const s = Math.max(0, Math.round((now - Number(ms)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/**
 * What closed an approval that was no longer waiting when someone decided it (the API's 409), from the order's live
 * state: { text: "Approved by ben@example.com 12 s ago", at } from the timeline's close entry of the node, or the
 * order's end when it ended first. `status` is the order's current status.
 */
export function closedApproval(state, nodeId) {
  const entries = state?.timeline || [];
  const close = [...entries].reverse().find((t) => t.nodeId === nodeId && String(t.kind).startsWith('close:'));
  const status = state?.status || '';
  if (close) {
    const data = close.data || {};
    const outcome = data.decision || data.outcome || '';
    const verb = outcome === 'approved' ? 'Approved' : outcome === 'rejected' ? 'Rejected'
      : outcome === 'escalated' ? 'Escalated' : 'Closed';
    const by = data.by && data.by !== 'timeout' ? ` by ${data.by}` : outcome === 'escalated' ? ' (nobody decided in time)' : '';
    return { text: `${verb}${by} ${ago(close.at)}`, at: close.at, note: data.note || '', status };
  }
  if (TERMINAL.includes(status)) {
    const last = entries[entries.length - 1];
    return { text: `The order ended (${status.replace('_', ' ')})${last ? ` ${ago(last.at)}` : ''}`, at: last?.at, status };
  }
  return { text: 'Someone else decided it first', status };
}

/** A Copy button for a text, with "Copied" once it is on the clipboard. */
export function copyButton(text, label = 'Copy note') {
  const button = h('button', { type: 'button', class: 'secondary copy-note' }, label);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      const range = document.createRange();
      const kept = button.previousElementSibling;
      if (kept) { range.selectNodeContents(kept); getSelection().removeAllRanges(); getSelection().addRange(range); }
      button.textContent = 'Selected: press Ctrl+C';
    }
  });
  return button;
}

export function badge(status, extra = '') {
  return h('span', { class: `badge ${status} ${extra}`.trim() }, String(status).replace('_', ' '));
}

export const ORDER_STATUSES = ['queued', 'running', 'waiting', 'completed', 'declined', 'cancelled', 'failed', 'rolled_back'];
export const TERMINAL = ['completed', 'declined', 'cancelled', 'failed', 'rolled_back'];
export const ORDER_TYPES = ['purchase_request', 'b2b_order', 'reorder', 'subscription', 'storefront_order'];

/** A table, or an empty state when there are no rows. */
export function table(headers, rows, empty = 'Nothing here yet.') {
  if (!rows.length) return h('p', { class: 'empty panel' }, empty);
  return h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, headers.map((header) => h('th', { scope: 'col' }, header)))),
    h('tbody', {}, rows)));
}

/** An error message element for a failed call. */
export function errorBox(e) {
  return h('p', { class: 'error', role: 'alert' }, e instanceof Error ? e.message : String(e));
}

/** Renders an inline form field with its label. */
export function field(label, input) {
  return h('label', {}, label, input);
}

// ---- the 5-second undo ----------------------------------------------------------------------------------------

export const UNDO_SECONDS = 5;

/**
 * Shows "<label> in 5 s · Undo" and runs `send` only once the 5 seconds have passed; Undo sends nothing.
 * Answers a promise of true when it was sent (after `send` settled) and false when it was undone. The Undo button
 * takes the focus unless `{ focus: false }` is given (the caller moves the keyboard on; Undo stays a Tab away).
 */
export function withUndo(label, options, send) {
  if (typeof options === 'function') { send = options; options = {}; }
  const tray = document.getElementById('undo-tray');
  return new Promise((resolve, reject) => {
    let left = UNDO_SECONDS;
    const count = h('span', { class: 'undo-count' }, String(left));
    const undo = h('button', { type: 'button', class: 'undo-button', 'aria-label': `Undo: ${label}` }, 'Undo');
    const bar = h('div', { class: 'undo', role: 'status' },
      h('span', {}, `${label} — sending in `, count, ' s'), undo);
    tray.append(bar);
    if (options.focus !== false) undo.focus({ preventScroll: true });
    const tick = setInterval(() => { left -= 1; count.textContent = String(Math.max(left, 0)); }, 1000);
    const timer = setTimeout(async () => {
      clearInterval(tick);
      bar.remove();
      try { await send(); resolve(true); } catch (e) { reject(e); }
    }, UNDO_SECONDS * 1000);
    undo.addEventListener('click', () => {
      clearTimeout(timer);
      clearInterval(tick);
      bar.replaceChildren(h('span', {}, `Undone: ${label}. Nothing was sent.`));
      setTimeout(() => bar.remove(), 2500);
      resolve(false);
    });
  });
}

/** Runs an async action from a button: disables it meanwhile and shows an error next to it. */
export async function act(button, status, action) {
  if (button) button.disabled = true;
  if (status) mount(status);
  try {
    return await action();
  } catch (e) {
    if (status) mount(status, errorBox(e));
    else alertError(e);
    return undefined;
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

function alertError(e) {
  const tray = document.getElementById('undo-tray');
  const bar = h('div', { class: 'undo', role: 'alert' }, h('span', {}, e.message || String(e)),
    h('button', { type: 'button', onclick: () => bar.remove() }, 'Dismiss'));
  tray.append(bar);
}

/** Runs `fn` for each item with at most `limit` at a time; answers the results in order. */
export async function pool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      try { results[i] = await fn(items[i]); } catch (e) { results[i] = e; }
    }
  });
  await Promise.all(workers);
  return results;
}

/**
 * The list socket (GET /api/v1/order-updates/socket): calls `onChange({ orders, statuses, many })` after orders
 * changed anywhere, at most about four times a second, and reconnects (1 s, 2 s, … up to 30 s) when it drops.
 * `onStatus(live)` says whether it is connected. Answers the function that closes it.
 */
export function listUpdates(onChange, onStatus = () => {}) {
  let ws = null;
  let closed = false;
  let retry = 0;
  let timer = null;
  const open = () => {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    ws = new WebSocket(`${scheme}://${location.host}/api/v1/order-updates/socket`);
    ws.onopen = () => { retry = 0; onStatus(true); };
    ws.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type === 'changed') onChange(message);
    };
    ws.onclose = (event) => {
      onStatus(false);
      // a sign-in that ended or too many sockets: the page's timer still refreshes it
      if (closed || event.code === 4401 || event.code === 4429) return;
      retry += 1;
      timer = setTimeout(open, Math.min(30_000, 1000 * 2 ** (retry - 1)));
    };
  };
  open();
  return () => { closed = true; clearTimeout(timer); ws?.close(); };
}
