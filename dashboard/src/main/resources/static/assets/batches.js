// Batch operations, for operators: the orders list's batch bar (act on the ticked orders, or on every order the
// filters match: pick the action, review it with its count, confirm), the Batches page (/batches) and one batch's
// page (/batches/<id>) with its progress, what it could not do and why, and Stop.
import { h, mount, api, can, badge, table, errorBox, field, timeEl, act } from './lib.js';
import { loadFlows, versionGraph, mappingText } from './migrate.js';

const REFRESH_MS = 1000;
const ACTIONS = [
  ['cancel', 'Cancel'], ['deliver_event', 'Deliver an event'], ['decide_approval', 'Decide an approval'],
  ['retry_incident', 'Retry the incident'], ['migrate', 'Migrate to another version'],
];

/** Goes to a page of the dashboard without a reload (the shell renders on popstate). */
function go(path) {
  history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a batch does, in words. */
export function describeAction(action) {
  switch (action.type) {
    case 'cancel': return `Cancel: ${action.reason}`;
    case 'deliver_event': return `Deliver ${action.event}`;
    case 'decide_approval': return `Decide ${action.nodeId}: ${action.decision}${action.note ? ` (${action.note})` : ''}`;
    case 'retry_incident': return 'Retry the incident';
    case 'migrate': {
      const renamed = mappingText(action.mapping);
      return `Migrate to version ${action.toVersion} of ${action.flowId}${renamed ? `: ${renamed}` : ''}`
        + `${action.dryRun ? ' (dry run: nothing changes)' : ''}`;
    }
    default: return action.type;
  }
}

/** Which orders a batch acts on, in words. */
function describeSelection(batch) {
  if (!batch.filter) return `${plural(batch.picked, 'order')} picked`;
  const f = batch.filter;
  const parts = [f.status, f.type && f.type.replaceAll('_', ' '), f.q && `“${f.q}”`,
    f.since && `from ${new Date(f.since).toLocaleDateString()}`,
    f.until && `to ${new Date(f.until).toLocaleDateString()}`].filter(Boolean);
  return parts.length ? `Orders: ${parts.join(', ')}` : 'Every order';
}

function progressText(b) {
  if (b.phase === 'matching' && b.state === 'running') return `Matching… ${b.matched} so far`;
  return `${b.done + b.failed} of ${b.matched} · ${b.done} done · ${b.failed} failed`;
}

function progressBar(b, id) {
  return h('progress', { id, max: String(Math.max(b.matched, 1)), value: String(b.done + b.failed),
    'aria-label': `Progress of batch ${b.id}` });
}

/**
 * The orders list's batch bar. `selected` is the set of ticked order ids (the list keeps it), `matching()` answers
 * `{ filter, count }`: the list's filters as a batch filter and how many orders they match now. `update()` redraws the
 * bar after the selection or the counts changed.
 */
export function batchBar({ selected, matching }) {
  const bar = h('div', { class: 'panel batch-bar', id: 'batch-bar' });
  let open = null; // { scope: 'selected' | 'filter', count, orderIds?, filter? } while the form is shown
  const status = h('div', { id: 'batch-status', role: 'status' });

  function update() {
    if (open) return;
    const { count } = matching();
    mount(bar,
      h('div', { class: 'row' },
        h('span', { id: 'batch-selected-count' }, `${plural(selected.size, 'order')} ticked`),
        h('button', { type: 'button', class: 'secondary', id: 'batch-act-selected', disabled: selected.size === 0,
          onclick: () => form({ scope: 'selected', count: selected.size, orderIds: [...selected] }) },
        `Act on ${plural(selected.size, 'ticked order')}`),
        h('button', { type: 'button', class: 'secondary', id: 'batch-act-filter', disabled: !count,
          onclick: () => { const m = matching(); form({ scope: 'filter', count: m.count, filter: m.filter }); } },
        `Act on all ${plural(count || 0, 'order')} the filters match`)),
      status);
  }

  function form(scope) {
    open = scope;
    const action = h('select', { id: 'batch-action' },
      ACTIONS.map(([value, label]) => h('option', { value }, label)));
    const reason = h('input', { id: 'batch-reason', type: 'text', maxlength: 500, placeholder: 'Why (required)' });
    const event = h('input', { id: 'batch-event', type: 'text', maxlength: 200, placeholder: 'payment.received' });
    const nodeId = h('input', { id: 'batch-node', type: 'text', maxlength: 200, placeholder: 'approval' });
    const decision = h('select', { id: 'batch-decision' }, h('option', { value: 'approved' }, 'approve'),
      h('option', { value: 'rejected' }, 'reject'));
    const note = h('input', { id: 'batch-note', type: 'text', maxlength: 2000 });
    const rate = h('input', { id: 'batch-rate', type: 'number', min: 1, step: 1, placeholder: 'default',
      inputmode: 'numeric' });
    const migration = migrateFields(scope);
    const fields = h('div', { class: 'row', id: 'batch-fields' });
    const problem = h('div', { id: 'batch-problem', 'aria-live': 'assertive' });
    const showFields = () => {
      const which = {
        cancel: [field('Reason', reason)],
        deliver_event: [field('Event', event)],
        decide_approval: [field('Approval node', nodeId), field('Decision', decision), field('Note', note)],
        retry_incident: [],
        migrate: migration.fields(),
      }[action.value];
      mount(fields, which, field('Orders a second (at most)', rate));
    };
    action.addEventListener('change', showFields);
    showFields();

    function body() {
      const request = scope.scope === 'selected' ? { orderIds: scope.orderIds } : { filter: scope.filter };
      request.action = action.value;
      if (action.value === 'cancel') request.reason = reason.value.trim();
      if (action.value === 'deliver_event') { request.event = event.value.trim(); request.payload = { source: 'dashboard' }; }
      if (action.value === 'decide_approval') {
        request.nodeId = nodeId.value.trim();
        request.decision = decision.value;
        if (note.value.trim()) request.note = note.value.trim();
      }
      if (action.value === 'migrate') Object.assign(request, migration.body());
      if (rate.value) request.rate = Number(rate.value);
      return request;
    }

    function missing(request) {
      if (request.action === 'cancel' && !request.reason) return [reason, 'A cancel needs a reason.'];
      if (request.action === 'deliver_event' && !request.event) return [event, 'Name the event to deliver.'];
      if (request.action === 'decide_approval' && !request.nodeId) return [nodeId, 'Name the approval node.'];
      if (request.action === 'migrate') return migration.missing(request);
      return null;
    }

    function confirmText(request) {
      const orders = plural(scope.count, 'order');
      switch (request.action) {
        case 'cancel': return `Cancel ${orders} for “${request.reason}”?`;
        case 'deliver_event': return `Deliver ${request.event} to ${orders}?`;
        case 'decide_approval': return `${request.decision === 'approved' ? 'Approve' : 'Reject'} the pending `
          + `approval at ${request.nodeId} of ${orders}?`;
        case 'migrate': {
          const renamed = mappingText(request.mapping);
          return request.dryRun
            ? `Check whether ${orders} could migrate to version ${request.toVersion} of flow ${request.flowId}? `
              + 'A dry run: nothing changes, and the batch says why each order that could not would not.'
            : `Migrate ${orders} to version ${request.toVersion} of flow ${request.flowId}`
              + `${renamed ? ` (${renamed})` : ''}?`;
        }
        default: return `Retry the open incident of ${orders}?`;
      }
    }

    function review() {
      const request = body();
      const gap = missing(request);
      if (gap) { mount(problem, h('p', { class: 'error' }, gap[1])); gap[0].focus(); return; }
      mount(problem);
      const confirm = h('button', { type: 'button', class: 'danger', id: 'batch-confirm' },
        `Start the batch on ${plural(scope.count, 'order')}`);
      const result = h('div', { id: 'batch-confirm-status', role: 'status' });
      confirm.addEventListener('click', () => act(confirm, result, async () => {
        const created = await api('/api/v1/batches', { method: 'POST', body: request });
        selected.clear();
        open = null;
        go(`/batches/${encodeURIComponent(created.id)}`);
      }));
      mount(bar, h('div', { class: 'notice', id: 'batch-confirm-box' },
        h('p', { id: 'batch-confirm-text' }, confirmText(request)),
        h('p', { class: 'muted' }, scope.scope === 'filter'
          ? 'The count is the filters’ now: orders that change meanwhile are acted on as they are then, and orders '
            + 'started from now on are left out. What the batch does cannot be undone.'
          : 'What the batch does cannot be undone.'),
        h('div', { class: 'row' }, confirm,
          h('button', { type: 'button', class: 'secondary', id: 'batch-back', onclick: () => { open = scope; draw(); } },
            'Back')),
        result));
      confirm.focus();
    }

    function draw() {
      mount(bar, h('form', { id: 'batch-form', onsubmit: (e) => { e.preventDefault(); review(); } },
        h('h2', {}, scope.scope === 'selected' ? `Act on ${plural(scope.count, 'ticked order')}`
          : `Act on all ${plural(scope.count, 'order')} the filters match`),
        h('div', { class: 'row' }, field('Action', action), fields),
        problem,
        h('div', { class: 'row' }, h('button', { type: 'submit', id: 'batch-review' }, 'Review'),
          h('button', { type: 'button', class: 'secondary', id: 'batch-close',
            onclick: () => { open = null; update(); } }, 'Close'))));
      action.focus();
    }
    draw();
  }

  update();
  return { element: bar, update, busy: () => open !== null };
}

/**
 * The migrate action's fields: the flow, the version to move its orders to, the renamed nodes (old id → new id, the
 * new ids offered from the version's nodes; a node not named keeps its id) and the dry run.
 */
function migrateFields(scope) {
  const flow = h('select', { id: 'batch-flow' }, h('option', { value: '' }, 'Loading the flows…'));
  const version = h('select', { id: 'batch-version' });
  const targets = h('datalist', { id: 'batch-map-targets' });
  const rows = h('div', { id: 'batch-mapping-rows' });
  const dryRun = h('input', { id: 'batch-dry-run', type: 'checkbox' });
  let flows = [];

  function versions() {
    const f = flows.find((x) => x.id === flow.value);
    const newest = f?.publishedVersion ?? 0;
    mount(version, Array.from({ length: newest }, (_, i) => newest - i).map((v) =>
      h('option', { value: String(v) }, `version ${v}`)));
    nodes();
  }
  function nodes() {
    mount(targets);
    if (!flow.value || !version.value) return;
    const [id, v] = [flow.value, version.value];
    versionGraph(id, v).then((graph) => {
      if (flow.value === id && version.value === v) {
        mount(targets, graph.nodes.map((n) => h('option', { value: n.id }, `${n.id} (${n.type})`)));
      }
    }).catch(() => {});
  }
  function addRow() {
    const from = h('input', { type: 'text', class: 'batch-map-from', maxlength: 200, placeholder: 'old node id',
      'aria-label': 'Old node id', autocomplete: 'off' });
    const to = h('input', { type: 'text', class: 'batch-map-to', maxlength: 200, placeholder: 'new node id',
      'aria-label': 'New node id', list: 'batch-map-targets', autocomplete: 'off' });
    const row = h('div', { class: 'row batch-map-row' }, from, h('span', { 'aria-hidden': 'true' }, '→'), to,
      h('button', { type: 'button', class: 'secondary batch-map-remove', 'aria-label': 'Remove this node',
        onclick: () => row.remove() }, 'Remove'));
    rows.append(row);
    return from;
  }
  flow.addEventListener('change', versions);
  version.addEventListener('change', nodes);
  addRow();
  loadFlows().then((all) => {
    flows = all.filter((f) => f.publishedVersion != null);
    const wanted = scope.filter?.type;
    mount(flow, flows.map((f) => h('option', { value: f.id, selected: f.orderType === wanted },
      `${f.name || f.id} (${f.id})`)));
    versions();
  }).catch((e) => mount(flow, h('option', { value: '' }, e.message)));

  const section = h('div', { id: 'batch-mapping' },
    h('p', { class: 'muted' }, 'Renamed nodes: old node id → node id in the new version. A node not named keeps its '
      + 'id, or is dropped when the new version does not have it.'),
    rows, targets,
    h('button', { type: 'button', class: 'secondary', id: 'batch-map-add', onclick: () => addRow().focus() },
      'Add a renamed node'));

  return {
    fields: () => [field('Flow', flow), field('To version', version), section,
      h('label', { class: 'inline' }, dryRun, ' Dry run: say what would happen, change nothing')],
    body() {
      const mapping = {};
      rows.querySelectorAll('.batch-map-row').forEach((row) => {
        const from = row.querySelector('.batch-map-from').value.trim();
        const to = row.querySelector('.batch-map-to').value.trim();
        if (from || to) mapping[from] = to;
      });
      return { flowId: flow.value, toVersion: Number(version.value), mapping, dryRun: dryRun.checked };
    },
    missing(request) {
      if (!request.flowId || !request.toVersion) return [flow, 'Choose the flow and the version.'];
      const half = [...rows.querySelectorAll('.batch-map-row')].find((row) =>
        !row.querySelector('.batch-map-from').value.trim() !== !row.querySelector('.batch-map-to').value.trim());
      if (half) return [half.querySelector('input'), 'Each renamed node needs its old id and its new id.'];
      return null;
    },
  };
}

// ---- the Batches page and one batch's page ---------------------------------------------------------------------

export function batchesPage(main, id) {
  if (!can('operator')) {
    mount(main, h('h1', {}, 'Batches'),
      h('p', { class: 'muted', id: 'batches-needs-operator' }, 'Batches need the operator role.'));
    return null;
  }
  return id ? batchPage(main, id) : listPage(main);
}

function listPage(main) {
  const list = h('div', { id: 'batches-list' }, h('p', { class: 'muted' }, 'Loading batches…'));
  mount(main, h('h1', {}, 'Batches'),
    h('p', { class: 'muted' }, 'Start a batch from the orders list: tick orders, or act on every order the filters match.'),
    list);
  let timer;
  async function load() {
    try {
      const { batches } = await api('/api/v1/batches?limit=50');
      mount(list, table(['Batch', 'Action', 'Orders', 'State', 'Progress', 'Started'], batches.map((b) => h('tr', {
        'data-batch': b.id, 'data-state': b.state,
      },
      h('td', { 'data-label': 'Batch' }, h('a', { href: `/batches/${encodeURIComponent(b.id)}` }, b.id)),
      h('td', { 'data-label': 'Action' }, describeAction(b.action)),
      h('td', { 'data-label': 'Orders' }, describeSelection(b)),
      h('td', { 'data-label': 'State' }, badge(b.state)),
      h('td', { 'data-label': 'Progress' }, progressBar(b), ' ', h('span', { class: 'batch-progress' }, progressText(b))),
      h('td', { 'data-label': 'Started' }, timeEl(b.createdAt), h('br'), h('small', { class: 'muted' }, b.createdBy)))),
      'No batches yet.'));
      timer = setTimeout(load, batches.some((b) => b.state === 'running') ? REFRESH_MS : 5 * REFRESH_MS);
    } catch (e) {
      mount(list, errorBox(e));
      timer = setTimeout(load, 5 * REFRESH_MS);
    }
  }
  load();
  return () => clearTimeout(timer);
}

function batchPage(main, id) {
  const view = h('div', { id: 'batch-view' }, h('p', { class: 'muted' }, 'Loading the batch…'));
  const status = h('div', { id: 'batch-page-status', role: 'status' });
  mount(main, h('p', {}, h('a', { href: '/batches' }, '← All batches')), h('h1', {}, `Batch ${id}`), status, view);
  let timer;
  let gone = false;

  function render(b) {
    const stop = b.state === 'running' ? h('button', { type: 'button', class: 'danger', id: 'batch-stop' }, 'Stop') : null;
    if (stop) {
      stop.addEventListener('click', () => act(stop, status, async () => {
        const after = await api(`/api/v1/batches/${encodeURIComponent(id)}/stop`, { method: 'POST' });
        mount(status, after.state === 'stopped' ? 'Stopped: it acts on no more orders.'
          : 'Stop asked for: it stops after the order under way.');
        render(after);
      }));
    }
    const state = badge(b.state);
    state.id = 'batch-state';
    mount(view,
      h('div', { class: 'panel' },
        h('p', {}, state, b.state === 'running' ? h('span', { class: 'muted' }, ` ${b.phase}`) : null),
        h('p', {}, progressBar(b, 'batch-progress'), ' ', h('span', { id: 'batch-progress-text' }, progressText(b))),
        h('ul', { class: 'counts', id: 'batch-counts' },
          h('li', {}, 'matched ', h('strong', { id: 'batch-matched' }, String(b.matched))),
          h('li', {}, 'done ', h('strong', { id: 'batch-done' }, String(b.done))),
          h('li', {}, 'failed ', h('strong', { id: 'batch-failed' }, String(b.failed)))),
        h('p', { id: 'batch-action-text' }, describeAction(b.action)),
        h('p', { class: 'muted' }, describeSelection(b), ` · at most ${b.rate} a second`,
          b.capped ? ' · stopped matching at the most orders a batch acts on' : ''),
        h('p', { class: 'muted' }, 'Started by ', b.createdBy, ' ', timeEl(b.createdAt),
          b.stoppedBy ? [' · stopped by ', b.stoppedBy] : null,
          b.endedAt ? [' · ended ', timeEl(b.endedAt)] : null),
        stop),
      h('h2', {}, 'Orders it could not act on'),
      table(['Order', 'Why', 'When'], (b.failures || []).map((f) => h('tr', { 'data-order': f.orderId },
        h('td', { 'data-label': 'Order' }, h('a', { href: `/orders/${encodeURIComponent(f.orderId)}` }, f.orderId)),
        h('td', { 'data-label': 'Why', class: 'batch-failure' }, f.reason),
        h('td', { 'data-label': 'When' }, timeEl(f.at)))), 'None.'),
      b.failed > (b.failures || []).length
        ? h('p', { class: 'muted' }, `The first ${(b.failures || []).length} of ${b.failed} are listed.`) : null);
  }

  async function load() {
    try {
      const b = await api(`/api/v1/batches/${encodeURIComponent(id)}`);
      if (gone) return;
      render(b);
      if (b.state === 'running') timer = setTimeout(load, REFRESH_MS);
    } catch (e) {
      if (!gone) mount(view, errorBox(e));
    }
  }
  load();
  return () => { gone = true; clearTimeout(timer); };
}
