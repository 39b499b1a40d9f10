// The list pages: orders, approvals inbox, back office, webhooks, team, flows.
import {
  h, mount, api, can, fill, money, time, timeEl, badge, table, errorBox, field, withUndo, act, pool,
  ORDER_STATUSES, ORDER_TYPES, TERMINAL,
} from './lib.js';

const REFRESH_MS = 5000;

/** Reloads a list every few seconds and when the window regains focus; answers the page's cleanup. */
function refreshing(load, every = () => REFRESH_MS) {
  load();
  let timer;
  const schedule = () => { timer = setTimeout(() => { if (!document.hidden) load(); schedule(); }, every()); };
  schedule();
  const onFocus = () => load();
  window.addEventListener('focus', onFocus);
  return () => { clearTimeout(timer); window.removeEventListener('focus', onFocus); };
}

function orderLink(row) {
  return h('a', { href: `/orders/${encodeURIComponent(row.id)}` }, row.id);
}

// ---- Orders -----------------------------------------------------------------------------------------------------

export function ordersPage(main) {
  const params = new URLSearchParams(location.search);
  const type = h('select', { id: 'filter-type' }, h('option', { value: '' }, 'Any type'),
    ORDER_TYPES.map((t) => h('option', { value: t, selected: params.get('type') === t }, t.replaceAll('_', ' '))));
  const status = h('select', { id: 'filter-status' }, h('option', { value: '' }, 'Any status'),
    ORDER_STATUSES.map((s) => h('option', { value: s, selected: params.get('status') === s }, s.replace('_', ' '))));
  const q = h('input', { id: 'filter-q', type: 'search', value: params.get('q') || '', placeholder: 'id, title or customer' });
  const counts = h('ul', { class: 'counts', id: 'status-counts', 'aria-label': 'Orders by status' });
  const list = h('div', { id: 'orders-list' }, h('p', { class: 'muted' }, 'Loading orders…'));
  let seq = 0;
  async function load() {
    const mine = ++seq;
    const query = new URLSearchParams();
    if (type.value) query.set('type', type.value);
    if (q.value.trim()) query.set('q', q.value.trim());
    const all = `/api/v1/orders?${query}`;
    if (status.value) query.set('status', status.value);
    try {
      const [filtered, every] = await Promise.all([api(`/api/v1/orders?${query}`), status.value ? api(all) : null]);
      if (mine !== seq) return;
      const rows = filtered.orders;
      const byStatus = {};
      (every || filtered).orders.forEach((o) => { byStatus[o.status] = (byStatus[o.status] || 0) + 1; });
      mount(counts, ORDER_STATUSES.filter((s) => byStatus[s]).map((s) =>
        h('li', { 'data-status': s }, badge(s), ' ', h('strong', {}, String(byStatus[s])))));
      if (!Object.keys(byStatus).length) mount(counts, h('li', {}, 'No orders'));
      mount(list, table(['Order', 'Title', 'Type', 'Status', 'Total', 'Waiting on', 'Created'],
        rows.map((o) => h('tr', { 'data-order': o.id },
          h('td', {}, orderLink(o)), h('td', {}, o.title || ''), h('td', {}, o.type.replaceAll('_', ' ')),
          h('td', {}, badge(o.status)), h('td', { class: 'num' }, money(o.total, o.currency)),
          h('td', {}, h('span', { class: 'wrap' }, o.waitingOn || '')), h('td', {}, timeEl(o.createdAt)))),
        type.value || status.value || q.value ? 'No orders match these filters.' : 'No orders yet. Start one with POST /api/v1/orders.'));
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  const apply = () => {
    const query = new URLSearchParams();
    if (type.value) query.set('type', type.value);
    if (status.value) query.set('status', status.value);
    if (q.value.trim()) query.set('q', q.value.trim());
    history.replaceState(null, '', `/orders${query.toString() ? `?${query}` : ''}`);
    load();
  };
  type.addEventListener('change', apply);
  status.addEventListener('change', apply);
  let typing;
  q.addEventListener('input', () => { clearTimeout(typing); typing = setTimeout(apply, 250); });
  mount(main, h('h1', {}, 'Orders'),
    h('form', { class: 'row panel', role: 'search', onsubmit: (e) => { e.preventDefault(); apply(); } },
      field('Type', type), field('Status', status), field('Search', q)),
    counts, list);
  return refreshing(load);
}

// ---- Approvals inbox ---------------------------------------------------------------------------------------------

const APPROVAL_FILTERS = ['pending', 'approved', 'rejected', 'escalated', 'all'];

/**
 * The approvals of one order from its live state: the open approval waits (pending), and each Approval node that
 * has finished (approved, rejected or escalated, by its branch and decision payload) or was cut short by a cancel.
 */
export function approvalsOf(state) {
  const rows = [];
  const order = state.order || {};
  for (const node of state.flow?.graph?.nodes || []) {
    if (node.type !== 'approval') continue;
    const live = state.nodes?.[node.id] || {};
    const wait = (state.waits || []).find((w) => w.nodeId === node.id && w.kind === 'approval');
    const base = { orderId: state.orderId, nodeId: node.id, orderTitle: order.title, currency: order.currency };
    if (wait) {
      rows.push({ ...base, status: 'pending', title: wait.title, assignee: wait.assignee, amount: wait.amount ?? order.total, at: wait.since, deadline: wait.deadline });
      continue;
    }
    const out = live.output || {};
    const branch = (live.branches || [])[0];
    const outcome = ['approved', 'rejected', 'escalated'].includes(branch) ? branch
      : ['approved', 'rejected', 'escalated'].includes(out.outcome) ? out.outcome
        : ['approved', 'rejected'].includes(out.decision) ? out.decision : null;
    const title = fill(node.settings?.title || node.title || 'Approve order {{order.id}}', state);
    const assignee = node.settings?.assignee || 'manager';
    if (outcome) {
      rows.push({ ...base, status: outcome, title, assignee, amount: order.total, at: live.endedAt || live.startedAt, by: out.by || (outcome === 'escalated' ? 'timeout' : ''), note: out.note });
    } else if (state.status === 'cancelled' && (live.runs?.length || live.startedAt)) {
      rows.push({ ...base, status: 'cancelled', title, assignee, amount: order.total, at: live.startedAt });
    }
  }
  return rows;
}

export function approvalsPage(main) {
  let filter = new URLSearchParams(location.search).get('status');
  if (!APPROVAL_FILTERS.includes(filter)) filter = 'pending';
  const list = h('div', { id: 'approvals-list' }, h('p', { class: 'muted' }, 'Loading approvals…'));
  const tabs = h('div', { class: 'row', role: 'group', 'aria-label': 'Show approvals' });
  const deciding = new Set(); // rows whose decision is in its undo window or being sent
  let seq = 0;
  function drawTabs() {
    mount(tabs, APPROVAL_FILTERS.map((f) => h('button', {
      type: 'button', class: f === filter ? '' : 'secondary', 'aria-pressed': f === filter ? 'true' : 'false', 'data-filter': f,
      onclick: () => { filter = f; history.replaceState(null, '', `/approvals?status=${f}`); drawTabs(); load(); },
    }, f[0].toUpperCase() + f.slice(1))));
  }
  async function load() {
    const mine = ++seq;
    try {
      // Pending approvals are open waits, so only waiting orders need reading; decided ones can be on any order.
      const { orders } = await api(filter === 'pending' ? '/api/v1/orders?status=waiting' : '/api/v1/orders');
      const candidates = filter === 'pending' ? orders.filter((o) => o.waitingOn) : orders;
      const states = await pool(candidates, 6, (o) => api(`/api/v1/orders/${encodeURIComponent(o.id)}`));
      if (mine !== seq) return;
      const rows = states.filter((s) => !(s instanceof Error)).flatMap(approvalsOf)
        .filter((r) => filter === 'all' || r.status === filter)
        .sort((a, b) => (b.at || 0) - (a.at || 0));
      mount(list, table(['Order', 'Approval', 'Assignee', 'Amount', 'Status', 'Decided by / note', 'Since', 'Decide'],
        rows.map(approvalRow), filter === 'pending' ? 'No approvals are waiting. Nice.' : `No ${filter === 'all' ? '' : `${filter} `}approvals.`),
      candidates.length >= 200 ? h('p', { class: 'muted' }, 'Read from the 200 newest orders.') : null);
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  function approvalRow(r) {
    const key = `${r.orderId}/${r.nodeId}`;
    const note = h('input', { type: 'text', 'aria-label': `Note for ${r.title}`, placeholder: 'Note (optional)', class: 'note' });
    const status = h('div', { 'aria-live': 'polite' });
    const decide = async (decision, button) => {
      deciding.add(key);
      row.querySelectorAll('button').forEach((b) => { b.disabled = true; });
      await act(button, status, async () => {
        const sent = await withUndo(`${decision === 'approved' ? 'Approve' : 'Reject'} ${r.title}`, () =>
          api(`/api/v1/orders/${encodeURIComponent(r.orderId)}/approvals/${encodeURIComponent(r.nodeId)}`,
            { method: 'POST', body: note.value.trim() ? { decision, note: note.value.trim() } : { decision } }));
        mount(status, sent ? h('span', {}, decision === 'approved' ? 'Approved.' : 'Rejected.') : h('span', { class: 'muted' }, 'Undone.'));
      });
      deciding.delete(key);
      row.querySelectorAll('button').forEach((b) => { b.disabled = false; });
      load();
    };
    const actions = r.status === 'pending' && can('approver') ? h('div', { class: 'row' }, note,
      h('button', { type: 'button', class: 'ok approve', onclick: (e) => decide('approved', e.currentTarget) }, 'Approve'),
      h('button', { type: 'button', class: 'danger reject', onclick: (e) => decide('rejected', e.currentTarget) }, 'Reject'),
      status) : (r.status === 'pending' ? h('span', { class: 'muted' }, 'Needs the approver role') : '');
    const row = h('tr', { 'data-order': r.orderId, 'data-node': r.nodeId, 'data-status': r.status },
      h('td', {}, orderLink({ id: r.orderId }), h('div', { class: 'muted' }, r.orderTitle || '')),
      h('td', {}, h('span', { class: 'wrap' }, r.title)), h('td', {}, r.assignee || ''), h('td', { class: 'num' }, money(r.amount, r.currency)),
      h('td', {}, badge(r.status, r.status === 'pending' ? 'pending-approval' : '')),
      h('td', {}, r.by || '', r.note ? h('div', { class: 'muted' }, `“${r.note}”`) : ''),
      h('td', {}, timeEl(r.at)), h('td', {}, actions));
    return row;
  }
  drawTabs();
  mount(main, h('h1', {}, 'Approvals'), tabs, h('p', { class: 'muted' },
    'Every decision waits 5 seconds with an Undo button before it is sent.'), list);
  // A refresh must not wipe a row whose decision is in its undo window.
  // Decided approvals need every order's state: those filters refresh less often than the pending one.
  return refreshing(() => { if (!deciding.size) load(); }, () => (filter === 'pending' ? REFRESH_MS : 4 * REFRESH_MS));
}

// ---- Back office -------------------------------------------------------------------------------------------------

export function backOfficePage(main) {
  const list = h('div', { id: 'back-office-list' }, h('p', { class: 'muted' }, 'Loading…'));
  let busy = false;
  let seq = 0;
  async function load() {
    const mine = ++seq;
    try {
      const { orders } = await api('/api/v1/orders?status=waiting');
      const states = await pool(orders.filter((o) => o.waitingOn), 6, (o) => api(`/api/v1/orders/${encodeURIComponent(o.id)}`));
      if (mine !== seq) return;
      const rows = states.filter((s) => !(s instanceof Error)).flatMap((s) => (s.waits || [])
        .filter((w) => w.kind === 'event').map((w) => ({ state: s, wait: w })))
        .sort((a, b) => (a.wait.since || 0) - (b.wait.since || 0));
      mount(list, table(['Order', 'Waiting for', 'Amount', 'Since', 'Deadline', 'Deliver'], rows.map(({ state, wait }) => {
        const status = h('span', { 'aria-live': 'polite' });
        const deliver = can('operator') ? h('button', {
          type: 'button', class: 'deliver',
          onclick: (e) => {
            busy = true;
            act(e.currentTarget, status, async () => {
              const result = await api(`/api/v1/orders/${encodeURIComponent(state.orderId)}/events`,
                { method: 'POST', body: { event: wait.event, payload: { source: 'back-office' } } });
              mount(status, result.delivered ? `Delivered to ${result.nodeId}.` : 'Nobody was waiting any more.');
            }).finally(() => { busy = false; setTimeout(load, 800); });
          },
        }, `Deliver ${wait.event}`) : h('span', { class: 'muted' }, 'Needs the operator role');
        return h('tr', { 'data-order': state.orderId, 'data-event': wait.event },
          h('td', {}, orderLink({ id: state.orderId }), h('div', { class: 'muted' }, state.order?.title || '')),
          h('td', {}, h('code', {}, wait.event), h('div', { class: 'muted' }, wait.title || '')),
          h('td', { class: 'num' }, money(wait.amount ?? state.order?.total, state.order?.currency)),
          h('td', {}, timeEl(wait.since)), h('td', {}, timeEl(wait.deadline)), h('td', {}, deliver, ' ', status));
      }), 'No orders are waiting on an event.'));
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  mount(main, h('h1', {}, 'Back office'), h('p', { class: 'muted' },
    'Orders waiting on a business event. Delivering sends the event with payload { source: "back-office" }.'), list);
  return refreshing(() => { if (!busy) load(); });
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
        mount(deliveries, table(['Event', 'Order', 'Status', 'Attempts', 'Response', 'Last error', 'Created', 'Delivered'],
          rows.map((d) => h('tr', {}, h('td', {}, d.event), h('td', {}, d.orderId ? orderLink({ id: d.orderId }) : ''),
            h('td', {}, badge(d.status)), h('td', { class: 'num' }, String(d.attempts ?? 0)),
            h('td', {}, d.responseStatus ? String(d.responseStatus) : '—'), h('td', {}, d.lastError || ''),
            h('td', {}, timeEl(d.createdAt)), h('td', {}, timeEl(d.deliveredAt)))), 'No deliveries yet.'));
      } catch (e) { mount(deliveries, errorBox(e)); }
    };
    const toggle = h('button', {
      type: 'button', class: 'secondary', 'aria-expanded': open.has(s.id) ? 'true' : 'false',
      onclick: () => {
        if (open.has(s.id)) { open.delete(s.id); mount(deliveries); toggle.setAttribute('aria-expanded', 'false'); }
        else { open.add(s.id); toggle.setAttribute('aria-expanded', 'true'); showDeliveries(); }
      },
    }, 'Deliveries');
    if (open.has(s.id)) showDeliveries();
    return h('section', { class: 'panel', 'data-subscription': s.id },
      h('div', { class: 'row' }, h('strong', {}, s.url), h('span', { class: 'muted' }, s.id)),
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
        role.addEventListener('change', () => act(role, status, async () => {
          await api(`/api/v1/team/people/${p.id}`, { method: 'PATCH', body: { role: role.value } });
          mount(status, 'Saved.');
        }).then(loadPeople));
        return h('tr', { 'data-person': p.email },
          h('td', {}, p.name || ''), h('td', {}, p.email), h('td', {}, operator ? role : p.role),
          h('td', {}, p.disabled ? badge('disabled', 'failed') : badge('active', 'completed')),
          h('td', {}, operator ? h('div', { class: 'row' },
            h('button', {
              type: 'button', class: 'secondary', onclick: (e) => act(e.currentTarget, status, async () => {
                await api(`/api/v1/team/people/${p.id}`, { method: 'PATCH', body: { disabled: !p.disabled } });
                loadPeople();
              }),
            }, p.disabled ? 'Enable' : 'Disable'),
            h('button', {
              type: 'button', class: 'secondary', onclick: (e) => act(e.currentTarget, status, async () => {
                const result = await api(`/api/v1/team/people/${p.id}/reset-password`, { method: 'POST' });
                showOnce(`New password for ${p.email} (shown only now; their sessions have ended):`, result.password, 'new-password');
              }),
            }, 'Reset password'), status) : ''));
      }), 'Nobody is registered yet.'));
    } catch (e) { mount(people, errorBox(e)); }
  }
  async function loadTokens() {
    try {
      const { tokens: rows } = await api('/api/v1/team/tokens');
      mount(tokens, table(['Name', 'Role', 'Ends in', 'Created', 'Created by', 'State', ''], rows.map((t) => {
        const status = h('span', { 'aria-live': 'polite' });
        return h('tr', { 'data-token': t.name },
          h('td', {}, t.name), h('td', {}, t.role), h('td', {}, t.hint ? `…${t.hint}` : ''), h('td', {}, timeEl(t.createdAt)),
          h('td', {}, t.createdBy || ''), h('td', {}, t.revoked ? badge('revoked', 'failed') : badge('active', 'completed')),
          h('td', {}, operator && !t.revoked ? h('button', {
            type: 'button', class: 'danger', onclick: (e) => act(e.currentTarget, status, async () => {
              await api(`/api/v1/team/tokens/${t.id}`, { method: 'DELETE' });
              loadTokens();
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
          const result = await api('/api/v1/team/tokens', { method: 'POST', body: { name: tokenName.value.trim(), role: tokenRole.value } });
          showOnce(`Token ${result.token.name} (${result.token.role}). Copy it now: it is shown only once.`, result.value, 'new-token-value');
          tokenName.value = '';
          loadTokens();
        });
      },
    }, field('Token name', tokenName), field('Role', tokenRole),
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
