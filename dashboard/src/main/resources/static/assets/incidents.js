// The incidents page, for operators: each order set aside because a record about it could not be processed, with the
// cause, when, the record's topic and offset, and its history; an open incident can be retried (its record is applied
// again) or dismissed with a note. `/incidents?order=<id>` shows one order's incidents.
import { h, mount, api, can, timeEl, table, errorBox } from './lib.js';

const STATUSES = { open: 'open', resolved: 'resolved', dismissed: 'dismissed' };

function where(i) {
  if (!i.topic) return 'a timer (no topic)';
  return `${i.topic}${i.partition != null ? ` partition ${i.partition}` : ''} offset ${i.offset}`;
}

function history(i) {
  return h('ol', { class: 'incident-history' }, ...(i.history || []).map((step) => h('li', { 'data-step': step.action },
    timeEl(step.at), ' ', step.action.replace('_', ' '),
    step.by ? ` by ${step.by}` : '',
    step.cause && step.action !== 'raised' ? `: ${step.cause}` : '',
    step.note ? `: ${step.note}` : '')));
}

export function incidentsPage(main) {
  mount(main, h('h1', {}, 'Incidents'));
  if (!can('operator')) {
    main.append(h('p', { class: 'muted', id: 'incidents-needs-operator' }, 'Incidents need the operator role.'));
    return null;
  }
  const order = new URLSearchParams(location.search).get('order');
  const status = h('p', { role: 'status', id: 'incidents-status', class: 'muted' });
  const list = h('div', { id: 'incidents-list' }, h('p', { class: 'muted' }, 'Loading incidents…'));
  if (order) {
    main.append(h('p', {}, 'Incidents of order ', h('a', { href: `/orders/${encodeURIComponent(order)}` }, order),
      ' · ', h('a', { href: '/incidents', id: 'incidents-all' }, 'all incidents')));
  }
  main.append(status, list);

  async function act(i, action, body) {
    status.textContent = '';
    try {
      const after = await api(`/api/v1/incidents/${encodeURIComponent(i.id)}/${action}`,
        { method: 'POST', body: body ?? {} });
      status.textContent = action === 'dismiss' ? `Incident on ${i.orderId} dismissed.`
        : after.status === 'open' ? `Retried: order ${i.orderId} was set aside again: ${after.cause}`
          : `Retried: order ${i.orderId} resumes where it stood.`;
    } catch (e) {
      status.replaceChildren(errorBox(e));
    }
    await load();
  }

  function actions(i) {
    if (i.status && i.status !== 'open') return h('span', { class: 'muted' }, '—');
    const note = h('input', { type: 'text', class: 'incident-note', placeholder: 'Why dismiss (required)',
      'aria-label': `Note for dismissing the incident on ${i.orderId}` });
    return h('div', { class: 'row' },
      h('button', { type: 'button', class: 'incident-retry', onclick: (ev) => { ev.target.disabled = true; act(i, 'retry'); } },
        'Retry'),
      note,
      h('button', { type: 'button', class: 'secondary incident-dismiss', onclick: () => {
        if (!note.value.trim()) { status.textContent = 'A dismissal needs a note.'; note.focus(); return; }
        act(i, 'dismiss', { note: note.value.trim() });
      } }, 'Dismiss'));
  }

  async function load() {
    try {
      const all = await api('/api/v1/incidents');
      const rows = (Array.isArray(all) ? all : all.incidents || [])
        .filter((i) => !order || i.orderId === order)
        .sort((a, b) => b.createdAt - a.createdAt);
      mount(list, table(['Order', 'Cause', 'When', 'Record', 'Status', 'History', 'Actions'], rows.map((i) => h('tr', {
        'data-incident': i.id, 'data-status': i.status || 'open',
      },
      h('td', { 'data-label': 'Order' }, h('a', { href: `/orders/${encodeURIComponent(i.orderId)}` }, i.orderId)),
      h('td', { 'data-label': 'Cause' }, h('span', { class: 'incident-cause' }, i.cause),
        h('br'), h('small', { class: 'muted' }, i.source)),
      h('td', { 'data-label': 'When' }, timeEl(i.createdAt)),
      h('td', { 'data-label': 'Record', class: 'incident-record' }, where(i)),
      h('td', { 'data-label': 'Status', class: 'incident-status' }, STATUSES[i.status] || 'open'),
      h('td', { 'data-label': 'History' }, history(i)),
      h('td', { 'data-label': 'Actions' }, actions(i)))), order ? 'This order has no incident.' : 'No incidents.'));
    } catch (e) {
      mount(list, errorBox(e));
    }
  }
  load();
  return null;
}
