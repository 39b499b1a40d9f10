// The list pages: orders, approvals inbox, back office, webhooks, team, flows.
import {
  h, mount, api, can, fill, money, time, timeEl, badge, table, errorBox, field, withUndo, act, pool,
  closedApproval, copyButton, listUpdates, ORDER_STATUSES, ORDER_TYPES, TERMINAL,
} from './lib.js';
import { batchBar } from './batches.js';

const REFRESH_MS = 5000;

/**
 * Reloads a list every few seconds and when the window regains focus; answers the page's cleanup. With `pushed`, the
 * list socket also calls it (by default `load`) within about a second of a change made anywhere; the timer stays as
 * the fallback while the socket is down.
 */
function refreshing(load, every = () => REFRESH_MS, pushed = null) {
  load();
  let timer;
  const schedule = () => { timer = setTimeout(() => { if (!document.hidden) load(); schedule(); }, every()); };
  schedule();
  const onFocus = () => load();
  window.addEventListener('focus', onFocus);
  const closeSocket = pushed ? listUpdates(coalesced(pushed)) : () => {};
  return () => { clearTimeout(timer); window.removeEventListener('focus', onFocus); closeSocket(); };
}

/** `fn` run for a push, never twice at once: pushes while it runs make one more run after it. */
function coalesced(fn) {
  let running = false;
  let again = null;
  const run = async (message) => {
    if (running) { again = message; return; }
    running = true;
    try { await fn(message); } catch { /* the page shows its own errors */ } finally {
      running = false;
      if (again) { const next = again; again = null; run(next); }
    }
  };
  return run;
}

function orderLink(row) {
  return h('a', { href: `/orders/${encodeURIComponent(row.id)}`, class: 'order-id' }, row.id);
}

// ---- Orders -----------------------------------------------------------------------------------------------------

const PAGE_SIZE = 50;

/** A date input's value as epoch milliseconds at the start (or, with `end`, the end) of that day, local time. */
function dayBound(value, end) {
  if (!value) return null;
  const [y, m, d] = value.split('-').map(Number);
  return end ? new Date(y, m - 1, d, 23, 59, 59, 999).getTime() : new Date(y, m - 1, d).getTime();
}

/**
 * The orders: a page of 50 at a time with the list API's cursor, "N–M of T" from the true counts of the whole index
 * (GET /api/v1/orders/counts, which also gives the counts by status), sorted by creation or by last change.
 */
/**
 * What an order in the list waits on, without its own id (a wait's title is often "Approve order <id>", and the id is
 * in the row already).
 */
function waitingOn(order) {
  return (order.waitingOn || '').replaceAll(` ${order.id}`, '').replaceAll(order.id, '').trim();
}

export function ordersPage(main) {
  const params = new URLSearchParams(location.search);
  const type = h('select', { id: 'filter-type' }, h('option', { value: '' }, 'Any type'),
    ORDER_TYPES.map((t) => h('option', { value: t, selected: params.get('type') === t }, t.replaceAll('_', ' '))));
  const status = h('select', { id: 'filter-status' }, h('option', { value: '' }, 'Any status'),
    ORDER_STATUSES.map((s) => h('option', { value: s, selected: params.get('status') === s }, s.replace('_', ' '))));
  const q = h('input', {
    id: 'filter-q', type: 'search', value: params.get('q') || '', placeholder: 'id, title, customer or SKU',
  });
  const sort = h('select', { id: 'sort' }, h('option', { value: 'created' }, 'Newest created'),
    h('option', { value: 'updated', selected: params.get('sort') === 'updated' }, 'Recently updated'));
  const since = h('input', { id: 'filter-since', type: 'date', value: params.get('since') || '' });
  const until = h('input', { id: 'filter-until', type: 'date', value: params.get('until') || '' });
  const counts = h('ul', { class: 'counts', id: 'status-counts', 'aria-label': 'Orders by status' });
  const list = h('div', { id: 'orders-list' }, h('p', { class: 'muted' }, 'Loading orders…'));
  const pager = h('nav', { class: 'row pager', id: 'pager', 'aria-label': 'Pages of orders' });
  const kept = h('p', { class: 'muted', id: 'retention' });
  const moved = h('div', { id: 'list-moved-slot', role: 'status' });
  // ?size= sets the page size (1 to 200; default 50)
  const pageSize = Math.min(200, Math.max(1, Number(params.get('size')) || PAGE_SIZE));
  let cursors = [null]; // the cursor of each page seen so far: cursors[i] opens page i
  let pageIndex = 0;
  let seq = 0;
  // sorted by change: the newest change on the first page when it was loaded. An order changed after it moves to
  // the top, ahead of the cursor, so the later pages would skip it: the page then says the list moved.
  let newestShown = null;
  // operators tick orders (kept across pages and refreshes, cleared when the filters change) for a batch operation
  const selected = new Set();
  let matchingNow = 0;
  const phone = matchMedia('(max-width: 640px)').matches;
  const batch = can('operator') ? batchBar({ selected, matching: () => ({ filter: batchFilter(), count: matchingNow }) })
    : null;
  /** The list's filters as a batch's: what "every order the filters match" acts on. */
  function batchFilter() {
    const filter = {};
    if (type.value) filter.type = type.value;
    if (status.value) filter.status = status.value;
    if (q.value.trim()) filter.q = q.value.trim();
    const from = dayBound(since.value, false);
    const to = dayBound(until.value, true);
    if (from != null) filter.since = from;
    if (to != null) filter.until = to;
    return filter;
  }
  function tick(orderId, on) {
    if (on) selected.add(orderId);
    else selected.delete(orderId);
    if (batch) batch.update();
  }
  function filters() {
    const query = new URLSearchParams();
    if (type.value) query.set('type', type.value);
    if (q.value.trim()) query.set('q', q.value.trim());
    const from = dayBound(since.value, false);
    const to = dayBound(until.value, true);
    if (from != null) query.set('since', String(from));
    if (to != null) query.set('until', String(to));
    return query;
  }
  function listQuery() {
    const query = filters();
    if (status.value) query.set('status', status.value);
    if (sort.value === 'updated') query.set('sort', 'updated');
    return query;
  }
  /** On a later page sorted by change: whether an order changed since the first page was read (then say so). */
  async function checkMoved() {
    if (sort.value !== 'updated' || pageIndex === 0 || newestShown == null) return;
    const query = listQuery();
    query.set('limit', '1');
    const top = (await api(`/api/v1/orders?${query}`)).orders[0];
    if (top && Number(top.updatedAt) > newestShown && !moved.firstChild) {
      mount(moved, h('div', { class: 'notice', id: 'list-moved' },
        h('p', {}, 'The list moved: orders changed since the first page was read, and a changed order moves to the '
          + 'first page, so paging on from here can skip it.'),
        h('button', { type: 'button', id: 'list-reload', onclick: () => { cursors = [null]; pageIndex = 0; load(); } },
          'Reload from the first page')));
    }
  }
  async function load() {
    const mine = ++seq;
    const countQuery = filters();
    const query = listQuery();
    query.set('limit', String(pageSize));
    if (cursors[pageIndex]) query.set('cursor', cursors[pageIndex]);
    try {
      const [page, tally] = await Promise.all([
        api(`/api/v1/orders?${query}`), api(`/api/v1/orders/counts?${countQuery}`)]);
      if (mine !== seq) return;
      const rows = page.orders;
      cursors = cursors.slice(0, pageIndex + 1);
      if (page.next) cursors.push(page.next);
      if (pageIndex === 0) {
        newestShown = rows.length ? Math.max(...rows.map((o) => Number(o.updatedAt) || 0)) : 0;
        mount(moved);
      } else {
        checkMoved().catch(() => {});
      }
      mount(counts, ORDER_STATUSES.filter((s) => tally.counts[s]).map((s) =>
        h('li', { 'data-status': s }, badge(s), ' ', h('strong', {}, String(tally.counts[s])))));
      if (!tally.total) mount(counts, h('li', {}, 'No orders'));
      if (tally.retentionMs) {
        const days = Math.round(tally.retentionMs / 86_400_000);
        const span = days >= 1 ? `${days} day${days === 1 ? '' : 's'}`
          : `${Math.max(1, Math.round(tally.retentionMs / 3_600_000))} h`;
        mount(kept, `Ended orders are listed for ${span} after their last change, then archived.`);
      }
      const total = status.value ? (tally.counts[status.value] || 0) : tally.total;
      matchingNow = total;
      if (batch) batch.update();
      const first = pageIndex * pageSize;
      mount(pager,
        h('button', { type: 'button', class: 'secondary', id: 'page-prev', disabled: pageIndex === 0,
          onclick: () => { pageIndex -= 1; load(); } }, '← Newer'),
        h('span', { id: 'page-range', role: 'status' }, rows.length
          ? `${first + 1}–${first + rows.length} of ${total}` : `0 of ${total}`),
        h('button', { type: 'button', class: 'secondary', id: 'page-next', disabled: !page.next,
          onclick: () => { pageIndex += 1; load(); } }, 'Older →'));
      const selectPage = batch ? h('input', { type: 'checkbox', id: 'select-page', 'aria-label': 'Tick every order on this page',
        checked: rows.length > 0 && rows.every((o) => selected.has(o.id)),
        onchange: (e) => { rows.forEach((o) => tick(o.id, e.target.checked)); load(); } }) : null;
      mount(list, table([selectPage, 'Order', 'Title', 'Type', 'Status', 'Total', 'Waiting on', 'Created', 'Updated']
        .filter((header) => header !== null),
        rows.map((o) => h('tr', { 'data-order': o.id },
          batch ? h('td', { 'data-label': 'Tick' }, h('input', { type: 'checkbox', class: 'select-order',
            'aria-label': `Tick order ${o.id}`, checked: selected.has(o.id),
            onchange: (e) => tick(o.id, e.target.checked) })) : null,
          h('td', { 'data-label': 'Order' }, orderLink(o)), h('td', { 'data-label': 'Title' }, o.title || ''),
          h('td', { 'data-label': 'Type' }, (o.type || '').replaceAll('_', ' ')),
          h('td', { 'data-label': 'Status' }, badge(o.status)),
          h('td', { class: 'num', 'data-label': 'Total' }, money(o.total, o.currency)),
          h('td', { 'data-label': 'Waiting on', class: 'waiting-on' }, h('span', { class: 'wrap' }, waitingOn(o))),
          h('td', { 'data-label': 'Created' }, timeEl(o.createdAt)),
          h('td', { 'data-label': 'Updated' }, timeEl(o.updatedAt)))),
        type.value || status.value || q.value || since.value || until.value ? 'No orders match these filters.'
          : ['No orders yet. ', can('operator') ? [h('a', { href: '/orders/new', id: 'start-first' },
            'Start an order'), ' from the form, or'] : 'Start one', ' with POST /api/v1/orders.']));
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  const apply = () => {
    const query = new URLSearchParams();
    if (type.value) query.set('type', type.value);
    if (status.value) query.set('status', status.value);
    if (q.value.trim()) query.set('q', q.value.trim());
    if (sort.value === 'updated') query.set('sort', 'updated');
    if (since.value) query.set('since', since.value);
    if (until.value) query.set('until', until.value);
    if (pageSize !== PAGE_SIZE) query.set('size', String(pageSize));
    history.replaceState(null, '', `/orders${query.toString() ? `?${query}` : ''}`);
    selected.clear();
    cursors = [null];
    pageIndex = 0;
    load();
  };
  [type, status, sort, since, until].forEach((input) => input.addEventListener('change', apply));
  let typing;
  q.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(apply, 250); });
  const exported = h('span', { id: 'export-status', role: 'status' });
  const exportButton = h('button', { type: 'button', class: 'secondary', id: 'export-csv' }, 'Export CSV');
  exportButton.addEventListener('click', () => act(exportButton, exported, () => exportCsv(filters(), status.value,
    sort.value, exported)));
  mount(main, h('div', { class: 'row page-head' }, h('h1', {}, 'Orders'),
    can('operator') ? h('a', { href: '/orders/new', class: 'button', id: 'start-order' }, 'Start an order') : null,
    exportButton, exported),
    // on a phone the filters fold away (open when some are set), so the first orders are on the first screen
    h('details', { class: 'filters', id: 'filters', open: !phone
      || [...params.keys()].some((k) => k !== 'sort') },
    h('summary', {}, 'Filters and sort'),
    h('form', { class: 'row panel', role: 'search', onsubmit: (e) => { e.preventDefault(); apply(); } },
      field('Type', type), field('Status', status), field('Search', q), field('Created from', since),
      field('to', until), field('Sort', sort))),
    // the batch bar sits above the list, but below it on a phone, where the first orders keep the first screen
    counts, batch && !phone ? batch.element : null, moved, pager, list, kept, batch && phone ? batch.element : null);
  // Only the first page refreshes by itself, on the timer and at once on a change anywhere: a later page stays put
  // while someone reads it, and says when the list moved under it
  return refreshing(() => { if (pageIndex === 0) load(); }, undefined,
    () => (pageIndex === 0 ? load() : checkMoved()));
}

const CSV_COLUMNS = [['id', 'id'], ['title', 'title'], ['type', 'type'], ['status', 'status'],
  ['customer', 'customerId'], ['total', 'total'], ['currency', 'currency'], ['waiting_on', 'waitingOn'],
  ['created_at', 'createdAt'], ['updated_at', 'updatedAt']];

/** One CSV field (RFC 4180); a text starting with = + - @ gets a leading ' so a spreadsheet does not run it. */
export function csvField(value) {
  if (value === undefined || value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Downloads every order the filters match (not only the page on screen) as CSV, in the list's order: the list API a
 * page of 200 at a time. Times are ISO 8601 in UTC.
 */
async function exportCsv(query, status, sort, progress) {
  const rows = [CSV_COLUMNS.map(([name]) => name).join(',')];
  let cursor = null;
  let count = 0;
  do {
    const page = new URLSearchParams(query);
    if (status) page.set('status', status);
    if (sort === 'updated') page.set('sort', 'updated');
    page.set('limit', '200');
    if (cursor) page.set('cursor', cursor);
    const answer = await api(`/api/v1/orders?${page}`);
    for (const order of answer.orders) {
      rows.push(CSV_COLUMNS.map(([, key]) => csvField(key.endsWith('At') && order[key]
        ? new Date(Number(order[key])).toISOString() : order[key])).join(','));
    }
    count += answer.orders.length;
    progress.textContent = `Exporting… ${count} orders`;
    cursor = answer.next;
  } while (cursor);
  const link = h('a', {
    href: URL.createObjectURL(new Blob([`${rows.join('\r\n')}\r\n`], { type: 'text/csv' })),
    download: `orders-${new Date().toISOString().slice(0, 10)}.csv`,
  });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  progress.textContent = `Exported ${count} orders.`;
}

// ---- Approvals inbox ---------------------------------------------------------------------------------------------

const APPROVAL_FILTERS = ['pending', 'approved', 'rejected', 'escalated', 'all'];

/** Time left until a deadline, in words: "2 h 5 min left", "overdue by 3 min". */
export function timeLeft(deadline, now = Date.now()) {
  if (!deadline) return '—';
  const ms = Number(deadline) - now;
  const minutes = Math.max(1, Math.round(Math.abs(ms) / 60000));
  const days = Math.floor(minutes / 1440), hours = Math.floor((minutes % 1440) / 60), mins = minutes % 60;
  const words = days ? `${days} d ${hours} h` : hours ? `${hours} h ${mins} min` : `${mins} min`;
  return ms >= 0 ? `${words} left` : `overdue by ${words}`;
}

/**
 * The approvals inbox: the approval rows of every order (GET /api/v1/approvals), soonest deadline first, filtered by
 * status and assignee, a page of 100 at a time. Pending ones are decided one by one or several at once, each after the
 * 5-second undo; a failed decision keeps its note and says why, with a Retry. The list is one call, refreshed every
 * 10 seconds while nobody is deciding.
 */
export function approvalsPage(main) {
  const params = new URLSearchParams(location.search);
  let filter = params.get('status');
  if (!APPROVAL_FILTERS.includes(filter)) filter = 'pending';
  const assignee = h('input', {
    id: 'filter-assignee', type: 'search', value: params.get('assignee') || '', placeholder: 'e.g. manager',
  });
  const list = h('div', { id: 'approvals-list' }, h('p', { class: 'muted' }, 'Loading approvals…'));
  const tabs = h('div', { class: 'row', role: 'group', 'aria-label': 'Show approvals' });
  const bulk = h('div', { class: 'row', id: 'bulk' });
  const summary = h('div', { id: 'inbox-summary', role: 'status' });
  const more = h('div', {});
  const notes = new Map(); // what was typed, by orderId/nodeId, kept across reloads until the decision went through
  const outcomes = new Map(); // by orderId/nodeId: { ok, message }
  const selected = new Set();
  const deciding = new Set(); // rows whose decision is in its undo window or being sent
  let rows = [];
  let next = null;
  let seq = 0;
  const keyOf = (r) => `${r.orderId}/${r.nodeId}`;
  function drawTabs() {
    mount(tabs, APPROVAL_FILTERS.map((f) => h('button', {
      type: 'button', class: f === filter ? '' : 'secondary', 'aria-pressed': f === filter ? 'true' : 'false', 'data-filter': f,
      onclick: () => { filter = f; selected.clear(); remember(); drawTabs(); load(); },
    }, f[0].toUpperCase() + f.slice(1))));
  }
  function remember() {
    const query = new URLSearchParams({ status: filter });
    if (assignee.value.trim()) query.set('assignee', assignee.value.trim());
    history.replaceState(null, '', `/approvals?${query}`);
  }
  function query(cursor) {
    const query = new URLSearchParams({ status: filter });
    if (assignee.value.trim()) query.set('assignee', assignee.value.trim());
    if (cursor) query.set('cursor', cursor);
    return `/api/v1/approvals?${query}`;
  }
  async function load() {
    const mine = ++seq;
    try {
      const page = await api(query(null));
      if (mine !== seq) return;
      // a row whose decision failed stays, with its note and its reason, even once the list no longer has it
      const fresh = new Set(page.approvals.map(keyOf));
      const failed = rows.filter((r) => outcomes.get(keyOf(r))?.ok === false && !fresh.has(keyOf(r)));
      rows = failed.concat(page.approvals);
      next = page.next || null;
      draw();
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  async function loadMore() {
    const mine = ++seq;
    try {
      const page = await api(query(next));
      if (mine !== seq) return;
      rows = rows.concat(page.approvals);
      next = page.next || null;
      draw();
    } catch (e) {
      mount(more, errorBox(e));
    }
  }
  /** Sends the decisions after one undo window; each row then shows what became of it. */
  async function decide(targets, decision) {
    const verb = decision === 'approved' ? 'Approve' : 'Reject';
    const label = targets.length === 1 ? `${verb} “${targets[0].title}” on ${targets[0].orderId}`
      : `${verb} ${targets.length} approvals`;
    targets.forEach((r) => { deciding.add(keyOf(r)); outcomes.delete(keyOf(r)); });
    // the keyboard moves on to the next row still to decide; Undo is reached deliberately (Tab, or the tray)
    const last = rows.findIndex((r) => keyOf(r) === keyOf(targets[targets.length - 1]));
    const after = rows.slice(last + 1).concat(rows.slice(0, Math.max(last, 0))).find((r) => r.status === 'pending'
      && !deciding.has(keyOf(r)) && !outcomes.get(keyOf(r))?.conflict);
    draw();
    const nextControl = after && document.getElementById(`pick-${after.orderId}-${after.nodeId}`);
    if (nextControl) nextControl.focus();
    let done = 0;
    let failed = 0;
    let conflicts = 0;
    try {
      await withUndo(label, { focus: false }, () => pool(targets, 4, async (r) => {
        const key = keyOf(r);
        const note = (notes.get(key) || '').trim();
        try {
          await api(`/api/v1/orders/${encodeURIComponent(r.orderId)}/approvals/${encodeURIComponent(r.nodeId)}`,
            { method: 'POST', body: note ? { decision, note } : { decision } });
          notes.delete(key);
          selected.delete(key);
          outcomes.set(key, { ok: true, message: decision === 'approved' ? 'Approved.' : 'Rejected.' });
          done += 1;
        } catch (e) {
          if (e.status === 409) {
            // not a failure: someone else decided first, or the order ended; the row says who and what, no Retry
            let state = null;
            try { state = await api(`/api/v1/orders/${encodeURIComponent(r.orderId)}`); } catch { /* said generally */ }
            selected.delete(key);
            outcomes.set(key, { ok: false, conflict: true, state, note });
            conflicts += 1;
          } else {
            outcomes.set(key, {
              ok: false, message: `Not ${decision}: ${e.message}`, retry: () => decide([r], decision),
            });
            failed += 1;
          }
        }
      }));
      if (done || failed || conflicts) {
        mount(summary, h('p', { class: failed ? 'error' : 'notice' },
          `${decision === 'approved' ? 'Approved' : 'Rejected'} ${done} of ${targets.length}`
          + `${conflicts ? `; ${conflicts} already decided by someone else or ended, as their rows say` : ''}`
          + `${failed ? `; ${failed} failed: see the rows below, whose notes are kept` : ''}.`));
      }
    } finally {
      targets.forEach((r) => deciding.delete(keyOf(r)));
      draw();
      setTimeout(load, 800);
    }
  }
  /** Redraws the rows; whoever was typing a note keeps the focus and the caret. */
  function draw() {
    const focused = document.activeElement && list.contains(document.activeElement) ? document.activeElement.id : null;
    const caret = focused ? [document.activeElement.selectionStart, document.activeElement.selectionEnd] : null;
    drawRows();
    const again = focused && document.getElementById(focused);
    if (again) {
      again.focus({ preventScroll: true });
      if (caret && typeof again.setSelectionRange === 'function' && caret[0] != null) again.setSelectionRange(...caret);
    }
  }
  function drawRows() {
    const now = Date.now();
    const pendingRows = rows.filter((r) => r.status === 'pending');
    const approver = can('approver');
    const chosen = pendingRows.filter((r) => selected.has(keyOf(r)) && !deciding.has(keyOf(r)));
    mount(bulk, approver && filter === 'pending' && pendingRows.length ? [
      h('button', { type: 'button', class: 'ok', id: 'approve-selected', disabled: !chosen.length,
        onclick: () => decide(chosen, 'approved') }, `Approve selected (${chosen.length})`),
      h('button', { type: 'button', class: 'danger', id: 'reject-selected', disabled: !chosen.length,
        onclick: () => decide(chosen, 'rejected') }, `Reject selected (${chosen.length})`),
    ] : null);
    const headers = ['', 'Order', 'Approval', 'Assignee', 'Amount', 'Deadline', 'Status', 'Decided by / note',
      'Decide'];
    mount(list, table(headers,
      rows.map((r) => approvalRow(r, now, approver)),
      filter === 'pending' ? 'No approvals are waiting. Nice.'
        : `No ${filter === 'all' ? '' : `${filter} `}approvals.`));
    mount(more, next
      ? h('button', { type: 'button', class: 'secondary', id: 'more-approvals', onclick: loadMore }, 'Show more')
      : null);
  }
  function approvalRow(r, now, approver) {
    const key = keyOf(r);
    const outcome = outcomes.get(key);
    const conflict = outcome?.conflict ? closedApproval(outcome.state, r.nodeId) : null;
    const pending = r.status === 'pending' && !conflict;
    const busy = deciding.has(key);
    const note = h('input', {
      type: 'text', 'aria-label': `Note for ${r.title}`, placeholder: 'Note (optional)', class: 'note',
      id: `note-${r.orderId}-${r.nodeId}`, value: notes.get(key) || '', disabled: busy,
    });
    note.addEventListener('input', () => notes.set(key, note.value));
    const pick = h('input', { type: 'checkbox', class: 'pick', 'aria-label': `Select ${r.title} on ${r.orderId}`,
      id: `pick-${r.orderId}-${r.nodeId}`, checked: selected.has(key), disabled: busy });
    pick.addEventListener('change', () => { if (pick.checked) selected.add(key); else selected.delete(key); draw(); });
    const result = conflict ? h('div', { class: 'outcome conflict', role: 'status' },
      h('p', { class: 'decided-elsewhere' }, conflict.text, '. ',
        conflict.status ? ['The order is ', badge(conflict.status), '.'] : ''),
      outcome.note ? h('p', { class: 'kept-note' }, 'Your note, not sent: ', h('q', { class: 'note-text' }, outcome.note),
        ' ', copyButton(outcome.note)) : null,
      h('button', {
        type: 'button', class: 'secondary dismiss', onclick: () => { outcomes.delete(key); load(); },
      }, 'Dismiss'))
      : outcome ? (outcome.ok ? h('p', { class: 'outcome', role: 'status' }, outcome.message)
      : h('div', { class: 'outcome failed', role: 'alert' }, h('p', { class: 'error' }, outcome.message),
        h('div', { class: 'row' }, h('button', { type: 'button', class: 'retry', onclick: outcome.retry }, 'Retry'),
          h('button', {
            type: 'button', class: 'secondary dismiss', onclick: () => { outcomes.delete(key); load(); },
          }, 'Dismiss')))) : null;
    const actions = pending && approver ? h('div', { class: 'row' }, note,
      h('button', {
        type: 'button', class: 'ok approve', disabled: busy, onclick: () => decide([r], 'approved'),
      }, 'Approve'),
      h('button', {
        type: 'button', class: 'danger reject', disabled: busy, onclick: () => decide([r], 'rejected'),
      }, 'Reject'),
      result) : (pending ? h('span', { class: 'muted' }, 'Needs the approver role') : result || '');
    const overdue = pending && r.deadline && Number(r.deadline) < now;
    return h('tr', { 'data-order': r.orderId, 'data-node': r.nodeId, 'data-status': r.status, class: 'approval-card' },
      h('td', { class: 'pick-cell' }, pending && approver ? pick : ''),
      h('td', { 'data-label': 'Order' }, orderLink({ id: r.orderId }),
        h('div', { class: 'muted' }, r.orderTitle || '')),
      h('td', { 'data-label': 'Approval' }, h('span', { class: 'wrap' }, r.title)),
      h('td', { 'data-label': 'Assignee' }, r.assignee || ''),
      h('td', { class: 'num', 'data-label': 'Amount' }, money(r.amount, r.currency)),
      h('td', { 'data-label': 'Deadline', class: overdue ? 'error' : '' },
        pending ? h('span', { class: 'time-left' }, timeLeft(r.deadline, now)) : '',
        r.deadline ? h('div', { class: 'muted' }, timeEl(r.deadline)) : ''),
      h('td', { 'data-label': 'Status' }, conflict ? badge('decided elsewhere', 'completed')
        : badge(r.status, pending ? 'pending-approval' : '')),
      h('td', { 'data-label': 'Decided' }, r.decidedBy || '',
        r.note ? h('div', { class: 'muted' }, `“${r.note}”`) : ''),
      h('td', { class: 'decide-cell' }, actions));
  }
  let typing;
  assignee.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => { selected.clear(); remember(); load(); }, 250);
  });
  drawTabs();
  mount(main, h('h1', {}, 'Approvals'), tabs,
    h('form', { class: 'row', role: 'search', onsubmit: (e) => { e.preventDefault(); load(); } },
      field('Assignee', assignee)),
    h('p', { class: 'muted' },
      'Soonest deadline first. Every decision waits 5 seconds with an Undo button before it is sent.'),
    summary, bulk, list, more);
  // A refresh must not wipe a row whose decision is in its undo window; a change anywhere reloads it at once
  const reload = () => (deciding.size ? undefined : load());
  return refreshing(reload, () => 2 * REFRESH_MS, reload);
}

// ---- Back office -------------------------------------------------------------------------------------------------

const BACK_OFFICE_PAGE = 50;

/**
 * The back office: the orders waiting on a business event, a page of 50 waiting orders at a time with the list API's
 * cursor (GET /api/v1/orders?status=waiting) and the true number waiting (GET /api/v1/orders/counts). Which event an
 * order waits for is in its live state: each order on the page is read once, and again only when the list shows it
 * changed. The page refreshes with one list call every 10 seconds; an order waiting only on an approval is named with a
 * link to the inbox.
 */
export function backOfficePage(main) {
  const list = h('div', { id: 'back-office-list' }, h('p', { class: 'muted' }, 'Loading…'));
  const pager = h('nav', { class: 'row pager', id: 'back-office-pager', 'aria-label': 'Pages of waiting orders' });
  const states = new Map(); // orderId -> { updatedAt, state (a promise) }: read once per change of the order
  let cursors = [null];
  let pageIndex = 0;
  let busy = false;
  let seq = 0;
  function stateOf(row) {
    const known = states.get(row.id);
    if (known && known.updatedAt === row.updatedAt) return known.state;
    const state = api(`/api/v1/orders/${encodeURIComponent(row.id)}`);
    states.set(row.id, { updatedAt: row.updatedAt, state }); // a read under way is shared, not repeated
    state.catch(() => states.delete(row.id));
    return state;
  }
  async function load() {
    const mine = ++seq;
    try {
      const query = new URLSearchParams({ status: 'waiting', limit: String(BACK_OFFICE_PAGE) });
      if (cursors[pageIndex]) query.set('cursor', cursors[pageIndex]);
      const [page, tally] = await Promise.all([api(`/api/v1/orders?${query}`), api('/api/v1/orders/counts')]);
      if (mine !== seq) return;
      const read = await pool(page.orders, 4, stateOf);
      if (mine !== seq) return;
      cursors = cursors.slice(0, pageIndex + 1);
      if (page.next) cursors.push(page.next);
      const waiting = tally.counts?.waiting || 0;
      const first = pageIndex * BACK_OFFICE_PAGE;
      mount(pager,
        h('button', { type: 'button', class: 'secondary', id: 'back-office-prev', disabled: pageIndex === 0,
          onclick: () => { pageIndex -= 1; load(); } }, '← Newer'),
        h('span', { id: 'back-office-range', role: 'status' }, page.orders.length
          ? `Waiting orders ${first + 1}–${first + page.orders.length} of ${waiting}, ${BACK_OFFICE_PAGE} a page`
          : `0 of ${waiting} waiting orders`),
        h('button', { type: 'button', class: 'secondary', id: 'back-office-next', disabled: !page.next,
          onclick: () => { pageIndex += 1; load(); } }, 'Older →'));
      const rows = [];
      page.orders.forEach((row, i) => {
        const state = read[i];
        if (state instanceof Error) {
          rows.push(h('tr', { 'data-order': row.id }, h('td', {}, orderLink(row)),
            h('td', { colspan: 5 }, errorBox(state))));
          return;
        }
        const events = (state.waits || []).filter((w) => w.kind === 'event');
        if (!events.length) {
          rows.push(h('tr', { 'data-order': row.id, 'data-event': '' }, h('td', {}, orderLink(row),
            h('div', { class: 'muted' }, row.title || '')),
          h('td', { colspan: 5, class: 'muted' }, `Waiting on an approval: ${row.waitingOn || ''}. `,
            h('a', { href: '/approvals' }, 'Decide it in the inbox'))));
          return;
        }
        events.forEach((wait) => rows.push(eventRow(state, wait)));
      });
      mount(list, table(['Order', 'Waiting for', 'Amount', 'Since', 'Deadline', 'Deliver'], rows,
        'No orders are waiting on an event.'));
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  function eventRow(state, wait) {
    const status = h('span', { 'aria-live': 'polite' });
    const deliver = can('operator') ? h('button', {
      type: 'button', class: 'deliver',
      onclick: (e) => {
        busy = true;
        act(e.currentTarget, status, async () => {
          let result;
          const sent = await withUndo(`Deliver ${wait.event} to ${state.orderId}`, async () => {
            result = await api(`/api/v1/orders/${encodeURIComponent(state.orderId)}/events`,
              { method: 'POST', body: { event: wait.event, payload: { source: 'back-office' } } });
          });
          if (sent) {
            mount(status, result.delivered ? `Delivered to ${result.nodeId}.` : 'Nobody was waiting any more.');
          }
        }).finally(() => { busy = false; setTimeout(load, 2500); });
      },
    }, `Deliver ${wait.event}`) : h('span', { class: 'muted' }, 'Needs the operator role');
    return h('tr', { 'data-order': state.orderId, 'data-event': wait.event },
      h('td', {}, orderLink({ id: state.orderId }), h('div', { class: 'muted' }, state.order?.title || '')),
      h('td', {}, h('code', {}, wait.event), h('div', { class: 'muted' }, wait.title || '')),
      h('td', { class: 'num' }, money(wait.amount ?? state.order?.total, state.order?.currency)),
      h('td', {}, timeEl(wait.since)), h('td', {}, timeEl(wait.deadline)), h('td', {}, deliver, ' ', status));
  }
  mount(main, h('h1', {}, 'Back office'), h('p', { class: 'muted' },
    'Orders waiting on a business event, newest first. Delivering sends the event with payload '
    + '{ source: "back-office" }.'), pager, list);
  // only the first page refreshes by itself: a later page stays put while someone works through it
  return refreshing(() => { if (!busy && pageIndex === 0) load(); }, () => 2 * REFRESH_MS);
}

// ---- Webhooks ----------------------------------------------------------------------------------------------------

const EVENTS = ['order.paid', 'order.invoiced', 'order.shipped', 'order.refunded', 'order.completed', 'order.declined', 'order.cancelled', 'order.failed'];

export function webhooksPage(main) {
  const list = h('div', { id: 'subscriptions' }, h('p', { class: 'muted' }, 'Loading…'));
  const created = h('div', { 'aria-live': 'polite', id: 'subscription-created' });
  const open = new Set();
  async function load() {
    try {
      const { subscriptions } = await api('/api/v1/webhook-subscriptions');
      mount(list, subscriptions.length ? subscriptions.map(subscription) : h('p', { class: 'empty panel' }, 'No subscriptions yet.'));
    } catch (e) {
      mount(list, errorBox(e));
    }
  }
  function subscription(s) {
    const deliveries = h('div', {});
    const status = h('span', { 'aria-live': 'polite' });
    const showDeliveries = async () => {
      mount(deliveries, h('p', { class: 'muted' }, 'Loading deliveries…'));
      try {
        const { deliveries: rows } = await api(`/api/v1/webhook-subscriptions/${encodeURIComponent(s.id)}/deliveries`);
        const operator = can('operator');
        const headers = ['Event', 'Order', 'Status', 'Attempts', 'Response', 'Last error', 'Created', 'Delivered'];
        mount(deliveries, table(operator ? [...headers, ''] : headers,
          rows.map((d) => h('tr', { 'data-delivery': d.id }, h('td', {}, d.event),
            h('td', {}, d.orderId ? orderLink({ id: d.orderId }) : ''),
            h('td', {}, badge(d.status)), h('td', { class: 'num' }, String(d.attempts ?? 0)),
            h('td', {}, d.responseStatus ? String(d.responseStatus) : '—'), h('td', {}, d.lastError || ''),
            h('td', {}, timeEl(d.createdAt)), h('td', {}, timeEl(d.deliveredAt)),
            operator ? h('td', {}, d.status === 'failed' ? redeliverButton(d) : null) : null)), 'No deliveries yet.'));
      } catch (e) { mount(deliveries, errorBox(e)); }
    };
    // Sends a failed delivery again (same id, one more attempt) and says what the subscriber answered; a refusal
    // (unknown, still pending, dispatcher down) goes to the alert tray.
    const redeliverButton = (d) => h('button', {
      type: 'button', class: 'secondary', onclick: (e) => act(e.currentTarget, null, async () => {
        const path = `/api/v1/webhook-subscriptions/${encodeURIComponent(s.id)}/deliveries/${encodeURIComponent(d.id)}`;
        const { delivery } = await api(`${path}/redeliver`, { method: 'POST' });
        const attempt = `attempt ${delivery.attempts}`;
        mount(status, delivery.status === 'delivered'
          ? h('span', { class: 'notice', role: 'status' },
            `Redelivered ${delivery.id}: delivered (HTTP ${delivery.responseStatus}), ${attempt}.`)
          : h('span', { class: 'error', role: 'alert' },
            `Redelivery of ${delivery.id} failed: ${delivery.lastError}, ${attempt}.`));
        showDeliveries();
      }),
    }, 'Redeliver');
    const toggle = h('button', {
      type: 'button', class: 'secondary', 'aria-expanded': open.has(s.id) ? 'true' : 'false',
      onclick: () => {
        if (open.has(s.id)) { open.delete(s.id); mount(deliveries); toggle.setAttribute('aria-expanded', 'false'); }
        else { open.add(s.id); toggle.setAttribute('aria-expanded', 'true'); showDeliveries(); }
      },
    }, 'Deliveries');
    if (open.has(s.id)) showDeliveries();
    return h('section', { class: 'panel', 'data-subscription': s.id },
      h('div', { class: 'row' }, h('strong', {}, s.url), badge(s.health || 'ok', 'health'),
        h('span', { class: 'muted' }, s.id)),
      s.health === 'failing' ? h('p', { class: 'error' }, 'Its last deliveries all failed; they are still retried.',
        s.lastSuccessAt ? ` Last success ${time(s.lastSuccessAt)}.` : ' No success yet.')
        : (s.lastSuccessAt ? h('p', { class: 'muted' }, `Last success ${time(s.lastSuccessAt)}`) : null),
      h('p', {}, 'Events: ', (s.events || []).join(', '), s.createdAt ? ` · created ${time(s.createdAt)}` : ''),
      h('div', { class: 'row' }, toggle, can('operator') ? h('button', {
        type: 'button', class: 'danger', onclick: (e) => act(e.currentTarget, status, async () => {
          await api(`/api/v1/webhook-subscriptions/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
          load();
        }),
      }, 'Delete') : null, status), deliveries);
  }
  const url = h('input', { id: 'webhook-url', type: 'url', required: true, placeholder: 'https://example.com/hook' });
  const boxes = EVENTS.map((e) => h('input', { type: 'checkbox', value: e }));
  const form = can('operator') ? h('form', {
    class: 'panel', onsubmit: async (e) => {
      e.preventDefault();
      const events = boxes.filter((b) => b.checked).map((b) => b.value);
      await act(e.submitter, created, async () => {
        const result = await api('/api/v1/webhook-subscriptions', { method: 'POST', body: events.length ? { url: url.value, events } : { url: url.value } });
        mount(created, h('div', { class: 'notice' }, h('p', {}, 'Subscription created. Its signing secret is shown only now:'),
          h('p', { class: 'secret', id: 'new-secret' }, result.secret)));
        url.value = '';
        boxes.forEach((b) => { b.checked = false; });
        load();
      });
    },
  }, h('h2', {}, 'New subscription'), field('URL (https; http only for localhost)', url),
  h('fieldset', {}, h('legend', {}, 'Events (none checked means every event)'),
    h('div', { class: 'row' }, boxes.map((b) => h('label', { class: 'inline' }, b, ' ', b.value)))),
  h('p', {}, h('button', { type: 'submit' }, 'Create subscription'))) : null;
  mount(main, h('h1', {}, 'Webhooks'), form, created, h('h2', {}, 'Subscriptions'), list);
  load();
}

// ---- Team --------------------------------------------------------------------------------------------------------

const ROLES = ['viewer', 'approver', 'operator'];

function roleSelect(id, value) {
  return h('select', { id }, ROLES.map((r) => h('option', { value: r, selected: r === value }, r)));
}

export function teamPage(main) {
  const operator = can('operator');
  const people = h('div', { id: 'people' }, h('p', { class: 'muted' }, 'Loading…'));
  const tokens = h('div', { id: 'tokens' }, h('p', { class: 'muted' }, 'Loading…'));
  const shown = h('div', { 'aria-live': 'polite', id: 'team-secret' });
  function showOnce(text, value, id) {
    mount(shown, h('div', { class: 'notice' }, h('p', {}, text), h('p', { class: 'secret', id }, value),
      h('button', { type: 'button', class: 'secondary', onclick: () => navigator.clipboard?.writeText(value) }, 'Copy')));
    shown.scrollIntoView({ block: 'nearest' });
  }
  async function loadPeople() {
    try {
      const { people: rows } = await api('/api/v1/team/people');
      mount(people, table(['Name', 'Email', 'Role', 'State', operator ? 'Change' : ''], rows.map((p) => {
        const status = h('span', { 'aria-live': 'polite' });
        const role = roleSelect(`role-${p.id}`, p.role);
        role.setAttribute('aria-label', `Role of ${p.email}`);
        // a role changes only on Save: moving through the options (arrow keys on the focused select) changes nothing
        const save = h('button', {
          type: 'button', class: 'secondary save-role', disabled: true,
          onclick: (e) => act(e.currentTarget, status, async () => {
            await api(`/api/v1/team/people/${p.id}`, { method: 'PATCH', body: { role: role.value } });
            mount(status, `Saved: ${p.email} is now ${role.value}.`);
            loadPeople();
          }),
        }, 'Save role');
        role.addEventListener('change', () => {
          save.disabled = role.value === p.role;
          mount(status, role.value === p.role ? ''
            : h('span', { class: 'muted' }, `Not saved: ${p.role} → ${role.value}`));
        });
        return h('tr', { 'data-person': p.email },
          h('td', {}, p.name || ''), h('td', {}, p.email),
          h('td', {}, operator ? h('div', { class: 'row' }, role, save) : p.role),
          h('td', {}, p.disabled ? badge('disabled', 'failed') : badge('active', 'completed')),
          h('td', {}, operator ? h('div', { class: 'row' },
            h('button', {
              type: 'button', class: 'secondary toggle-person',
              onclick: (e) => act(e.currentTarget, status, async () => {
                const sent = await withUndo(`${p.disabled ? 'Enable' : 'Disable'} ${p.email}`, () =>
                  api(`/api/v1/team/people/${p.id}`, { method: 'PATCH', body: { disabled: !p.disabled } }));
                if (sent) loadPeople();
              }),
            }, p.disabled ? 'Enable' : 'Disable'),
            h('button', {
              type: 'button', class: 'secondary reset-password',
              onclick: (e) => act(e.currentTarget, status, async () => {
                let result;
                const sent = await withUndo(`Reset the password of ${p.email}`, async () => {
                  result = await api(`/api/v1/team/people/${p.id}/reset-password`, { method: 'POST' });
                });
                if (sent) {
                  showOnce(`New password for ${p.email} (shown only now; their sessions have ended):`,
                    result.password, 'new-password');
                }
              }),
            }, 'Reset password'), status) : ''));
      }), 'Nobody is registered yet.'));
    } catch (e) { mount(people, errorBox(e)); }
  }
  async function loadTokens() {
    try {
      const { tokens: rows } = await api('/api/v1/team/tokens');
      const now = Date.now();
      const headers = ['Name', 'Role', 'Ends in', 'Created', 'Created by', 'Expires', 'Last used', 'State', ''];
      mount(tokens, table(headers, rows.map((t) => {
        const status = h('span', { 'aria-live': 'polite' });
        const expired = t.expiresAt != null && t.expiresAt <= now;
        return h('tr', { 'data-token': t.name },
          h('td', {}, t.name), h('td', {}, t.role), h('td', {}, t.hint ? `…${t.hint}` : ''), h('td', {}, timeEl(t.createdAt)),
          h('td', {}, t.createdBy || ''),
          h('td', { class: 'token-expires' }, t.expiresAt ? timeEl(t.expiresAt) : 'never'),
          h('td', { class: 'token-last-used' }, t.lastUsedAt ? timeEl(t.lastUsedAt) : 'never'),
          h('td', {}, t.revoked ? badge('revoked', 'failed')
            : expired ? badge('expired', 'failed') : badge('active', 'completed')),
          h('td', {}, operator && !t.revoked ? h('button', {
            type: 'button', class: 'danger', onclick: (e) => act(e.currentTarget, status, async () => {
              const sent = await withUndo(`Revoke token ${t.name}`,
                () => api(`/api/v1/team/tokens/${t.id}`, { method: 'DELETE' }));
              if (sent) loadTokens();
            }),
          }, 'Revoke') : '', status));
      }), 'No tokens yet.'));
    } catch (e) { mount(tokens, errorBox(e)); }
  }
  const personEmail = h('input', { id: 'person-email', type: 'email', required: true });
  const personName = h('input', { id: 'person-name', type: 'text', required: true });
  const personRole = roleSelect('person-role', 'viewer');
  const personStatus = h('div', { 'aria-live': 'polite' });
  const tokenName = h('input', { id: 'token-name', type: 'text', required: true, maxlength: 80 });
  const tokenRole = roleSelect('token-role', 'viewer');
  const tokenExpires = h('input', { id: 'token-expires', type: 'date' });
  const tokenStatus = h('div', { 'aria-live': 'polite' });
  mount(main, h('h1', {}, 'Team'), shown,
    h('h2', {}, 'People'),
    operator ? h('form', {
      class: 'row panel', onsubmit: (e) => {
        e.preventDefault();
        act(e.submitter, personStatus, async () => {
          const result = await api('/api/v1/team/people', { method: 'POST', body: { email: personEmail.value.trim(), name: personName.value.trim(), role: personRole.value } });
          showOnce(`Password for ${result.person.email} (shown only now):`, result.password, 'new-password');
          personEmail.value = ''; personName.value = '';
          loadPeople();
        });
      },
    }, field('Email', personEmail), field('Name', personName), field('Role', personRole),
    h('button', { type: 'submit', id: 'add-person' }, 'Add person'), personStatus) : null,
    people,
    h('h2', {}, 'API tokens'),
    operator ? h('form', {
      class: 'row panel', onsubmit: (e) => {
        e.preventDefault();
        act(e.submitter, tokenStatus, async () => {
          const body = { name: tokenName.value.trim(), role: tokenRole.value };
          // the token works through the chosen day, local time
          if (tokenExpires.value) body.expiresAt = dayBound(tokenExpires.value, true) + 1;
          const result = await api('/api/v1/team/tokens', { method: 'POST', body });
          showOnce(`Token ${result.token.name} (${result.token.role}). Copy it now: it is shown only once.`, result.value, 'new-token-value');
          tokenName.value = '';
          tokenExpires.value = '';
          loadTokens();
        });
      },
    }, field('Token name', tokenName), field('Role', tokenRole), field('Expires after (optional)', tokenExpires),
    h('button', { type: 'submit', id: 'create-token' }, 'Create token'), tokenStatus) : null,
    tokens);
  loadPeople();
  loadTokens();
}

// ---- Flows -------------------------------------------------------------------------------------------------------

export function flowsPage(main) {
  const list = h('div', { id: 'flows' }, h('p', { class: 'muted' }, 'Loading…'));
  mount(main, h('h1', {}, 'Flows'), h('p', { class: 'muted' }, 'Read only: flows are published with the flow-runner\'s publish command.'), list);
  api('/api/v1/flows').then(({ flows }) => mount(list, table(['Flow', 'Order type', 'Published', 'Versions', 'Nodes', 'Updated'],
    flows.map((f) => h('tr', { 'data-flow': f.id },
      h('td', {}, h('strong', {}, f.name || f.id), h('div', { class: 'muted' }, f.id), f.description ? h('div', {}, f.description) : ''),
      h('td', {}, f.orderType.replaceAll('_', ' ')),
      h('td', {}, f.publishedVersion == null ? 'not published' : `v${f.publishedVersion}`),
      h('td', {}, f.publishedVersion == null ? '—' : Array.from({ length: f.publishedVersion }, (_, i) => `v${i + 1}`).join(', ')),
      h('td', { class: 'num' }, String(f.nodeCount ?? '')), h('td', {}, timeEl(f.updatedAt)))), 'No flows.')))
    .catch((e) => mount(list, errorBox(e)));
}

export { TERMINAL };
