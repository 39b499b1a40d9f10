// Migrating orders to another version of their flow, for operators: the order page's Migrate panel (choose a newer
// version, map the nodes, preview what happens, then migrate) and what the batch form needs (the flows and a
// version's nodes).
import { h, mount, api, field, time } from './lib.js';

/** Every flow as GET /api/v1/flows lists it: { id, name, publishedVersion, ... }. */
export function loadFlows() {
  return api('/api/v1/flows').then(({ flows }) => flows);
}

const graphs = new Map(); // `${flowId}@${version}` → the promise of the version's graph (a version never changes)

/** The graph ({ nodes, edges }) of one published version of a flow. */
export function versionGraph(flowId, version) {
  const key = `${flowId}@${version}`;
  if (!graphs.has(key)) {
    const read = api(`/api/v1/flows/${encodeURIComponent(flowId)}/versions/${encodeURIComponent(version)}`)
      .then((v) => v.graph);
    read.catch(() => graphs.delete(key));
    graphs.set(key, read);
  }
  return graphs.get(key);
}

/** "approval → manager_approval, reserve → reserve_stock" for the renamed nodes of a mapping, or "". */
export function mappingText(mapping) {
  return Object.entries(mapping || {}).map(([from, to]) => `${from} → ${to}`).join(', ');
}

/**
 * What a migration did or would do (the answer of POST /api/v1/orders/:id/migrate): where each open wait goes, each
 * node of the old version and the node it becomes, the nodes not kept and the new ones.
 */
function answerView(answer) {
  const to = `version ${answer.toVersion}`;
  const waits = answer.waits || [];
  return [
    waits.length ? h('ul', { id: 'migrate-waits' }, waits.map((w) => h('li', { 'data-from': w.from, 'data-to': w.to },
      w.from === w.to ? `The wait for ${w.event} stays at ${w.to}` : `The wait for ${w.event} moves from ${w.from} to ${w.to}`,
      w.deadline ? `, its deadline kept (${time(w.deadline)})` : '', '.'))) : null,
    h('div', { class: 'table-wrap' }, h('table', { id: 'migrate-nodes' },
      h('thead', {}, h('tr', {}, [`Node in version ${answer.fromVersion}`, `In ${to}`, 'Status']
        .map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, (answer.nodes || []).map((n) => h('tr', { 'data-from': n.from, 'data-to': n.to,
        class: n.from === n.to ? null : 'renamed' },
      h('td', {}, n.from), h('td', {}, n.from === n.to ? n.to : h('strong', {}, n.to)), h('td', {}, n.status)))))),
    answer.dropped?.length ? h('p', { id: 'migrate-dropped' }, `Not kept (they will not run): `,
      answer.dropped.map((d) => `${d.id} (${d.status})`).join(', '), '.') : null,
    answer.added?.length ? h('p', { id: 'migrate-added' }, `New in ${to}, pending: ${answer.added.join(', ')}.`) : null,
  ];
}

/**
 * The order page's Migrate panel, for operators: shown while the order waits and a newer version of its flow is
 * published. `redraw()` draws the order page again (it keeps the focus); `done(message)` says the order migrated.
 * Answers { element, draw(state) }: the page calls draw on every render.
 */
export function migratePanel({ orderId, redraw, done }) {
  const element = h('section', { class: 'panel', id: 'order-migrate', 'aria-labelledby': 'migrate-h', hidden: true });
  let flows = null;
  let form = null; // while open: { fromVersion, version, graph, targets: Map(old id → new id, '' not kept), ... }
  loadFlows().then((all) => { flows = all; redraw(); }).catch(() => { flows = []; });

  function open(state, version) {
    form = { fromVersion: state.flow.version, version, graph: null, targets: new Map(), preview: null, problem: null,
      busy: false };
    const opened = form;
    versionGraph(state.flow.flowId, version).then((graph) => {
      if (form !== opened) return;
      const ids = new Set(graph.nodes.map((n) => n.id));
      (state.flow.graph?.nodes || []).forEach((n) => opened.targets.set(n.id, ids.has(n.id) ? n.id : ''));
      opened.graph = graph;
      redraw();
      document.getElementById('migrate-version')?.focus();
    }).catch((e) => { if (form === opened) { opened.problem = e.message; redraw(); } });
    redraw();
  }

  /** The request: the version, and the nodes that do not keep their id (a node not named keeps it, or is dropped). */
  function request(dryRun) {
    const ids = new Set(form.graph.nodes.map((n) => n.id));
    const mapping = {};
    form.targets.forEach((to, from) => {
      if (to && !(to === from && ids.has(from))) mapping[from] = to;
    });
    return { toVersion: form.version, mapping, dryRun };
  }

  /** Sends the migration: a preview (dry run) of the mapping as chosen, or the migration of the preview shown. */
  async function send(dryRun) {
    const sent = form;
    const body = dryRun ? request(true) : { ...sent.preview.body, dryRun: false };
    sent.busy = true;
    sent.problem = null;
    if (dryRun) sent.preview = null;
    redraw();
    try {
      const answer = await api(`/api/v1/orders/${encodeURIComponent(orderId)}/migrate`, { method: 'POST', body });
      if (!dryRun) {
        // said even when the order's new state came first over the socket and closed the form (draw)
        if (form === sent) form = null;
        const renamed = mappingText(body.mapping);
        done(`Migrated to version ${answer.toVersion}${renamed ? `: ${renamed}` : ''}.`);
      } else if (form === sent) {
        sent.preview = { body, answer };
      }
    } catch (e) {
      if (form === sent) sent.problem = e.message;
    } finally {
      sent.busy = false;
      redraw();
    }
  }

  function mappingRows(state) {
    const standing = new Set([...(state.waits || []).map((w) => w.nodeId),
      ...Object.entries(state.nodes || {}).filter(([, n]) => ['running', 'waiting'].includes(n.status)).map(([id]) => id)]);
    const ids = new Set(form.graph.nodes.map((n) => n.id));
    return (state.flow.graph?.nodes || []).map((node) => {
      const choose = h('select', { id: `migrate-to-${node.id}`, class: 'migrate-to', 'data-from': node.id,
        'aria-label': `${node.id} becomes`, disabled: form.busy,
        onchange: (e) => { form.targets.set(node.id, e.target.value); form.preview = null; form.problem = null; redraw(); } },
      ids.has(node.id) ? null : h('option', { value: '' }, 'not kept'),
      form.graph.nodes.map((n) => h('option', { value: n.id, selected: form.targets.get(node.id) === n.id },
        n.id === node.id ? n.id : `${n.id} (${n.type})`)));
      const to = form.targets.get(node.id);
      return h('tr', { 'data-node': node.id, class: to && to !== node.id ? 'renamed' : null },
        h('td', {}, h('span', { class: 'wrap' }, node.id), h('br'), h('small', { class: 'muted' }, node.type),
          standing.has(node.id) ? h('small', { class: 'migrate-here' }, ' · the order is here') : null),
        h('td', {}, choose));
    });
  }

  function draw(state) {
    const flow = flows?.find((f) => f.id === state.flow?.flowId);
    const current = state.flow?.version;
    const newest = flow?.publishedVersion ?? 0;
    if (form && form.fromVersion !== current) form = null; // migrated meanwhile (here or elsewhere)
    if (!flow || newest <= current) {
      element.hidden = true;
      mount(element);
      return element;
    }
    element.hidden = false;
    const heading = h('h2', { id: 'migrate-h' }, 'Migrate');
    if (state.status !== 'waiting') {
      form = null;
      mount(element, heading, h('p', { class: 'muted', id: 'migrate-not-waiting' },
        `Version ${newest} of this flow is published. An order is migrated while it waits at an approval or an event.`));
      return element;
    }
    const versions = [];
    for (let v = newest; v > current; v -= 1) versions.push(v);
    if (!form) {
      mount(element, heading, h('p', {}, `This order runs on version ${current} of flow ${flow.id}; `,
        `version ${newest} is published.`),
      h('button', { type: 'button', class: 'secondary', id: 'migrate-open', onclick: () => open(state, newest) },
        'Migrate to a newer version…'));
      return element;
    }
    const version = h('select', { id: 'migrate-version', disabled: form.busy,
      onchange: (e) => open(state, Number(e.target.value)) },
    versions.map((v) => h('option', { value: String(v), selected: v === form.version }, `version ${v}`)));
    const preview = form.preview;
    mount(element, heading,
      h('div', { class: 'row' }, field('To version', version)),
      form.graph ? [
        h('p', { class: 'muted' }, `Each node of version ${current} and the node it becomes in version ${form.version}. `
          + 'The node the order is at must become a node of the same type.'),
        h('div', { class: 'table-wrap' }, h('table', { id: 'migrate-mapping' },
          h('thead', {}, h('tr', {}, [`Node in version ${current}`, `Becomes in version ${form.version}`]
            .map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, mappingRows(state)))),
      ] : h('p', { class: 'muted' }, `Loading version ${form.version}…`),
      form.problem ? h('p', { class: 'error', role: 'alert', id: 'migrate-problem' }, form.problem) : null,
      preview ? h('div', { class: 'notice', id: 'migrate-preview-result' },
        h('p', {}, h('strong', {}, `Preview: nothing has changed yet.`), ` Migrating moves the order to version `
          + `${preview.answer.toVersion}:`),
        answerView(preview.answer)) : null,
      h('div', { class: 'row' },
        h('button', { type: 'button', class: preview ? 'secondary' : null, id: 'migrate-preview',
          disabled: form.busy || !form.graph, onclick: () => send(true) }, 'Preview'),
        preview ? h('button', { type: 'button', id: 'migrate-confirm', disabled: form.busy, onclick: () => send(false) },
          `Migrate to version ${preview.answer.toVersion}`) : null,
        h('button', { type: 'button', class: 'secondary', id: 'migrate-close', disabled: form.busy,
          onclick: () => { form = null; redraw(); } }, 'Close')));
    return element;
  }

  return { element, draw };
}
