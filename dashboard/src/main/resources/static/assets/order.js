// The order page: live over the order socket (no polling), the flow graph, waits with decisions (5-second undo),
// events, cancel, node details, the timeline and the ops chat.
import {
  h, mount, can, fill, money, time, timeEl, ago, badge, field, withUndo, act, closedApproval, copyButton, TERMINAL,
} from './lib.js';
import { drawGraph, drawnStates, stepList, legend } from './graph.js';
import { migratePanel } from './migrate.js';

/** The order socket: pushes of the live state, and calls answered by id. */
class OrderSocket {
  constructor(orderId, { onState, onStatus, onEnded }) {
    this.orderId = orderId;
    this.handlers = { onState, onStatus, onEnded };
    this.pending = new Map();
    this.nextId = 1;
    this.closed = false;
    this.retry = 0;
    this.open();
  }

  open() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/v1/orders/${encodeURIComponent(this.orderId)}/socket`);
    this.ws = ws;
    ws.onopen = () => { this.retry = 0; this.handlers.onStatus(true); };
    ws.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type === 'state') {
        this.handlers.onStatus(true);
        this.handlers.onState(message.state);
      }
      else if (message.id !== undefined && this.pending.has(message.id)) {
        const { resolve, reject } = this.pending.get(message.id);
        this.pending.delete(message.id);
        if ('error' in message) reject(Object.assign(new Error(message.error), { status: message.status }));
        else resolve(message.result);
      } else if (message.type === 'error') this.handlers.onStatus(false, message.error);
    };
    ws.onclose = (event) => {
      this.pending.forEach(({ reject }) => reject(new Error('The connection closed before the answer came.')));
      this.pending.clear();
      if (this.closed) return;
      if (event.code === 4401 || event.code === 4404 || event.code === 1008) {
        this.closed = true;
        this.handlers.onEnded(event.code);
        return;
      }
      this.handlers.onStatus(false);
      const wait = Math.min(10000, 500 * 2 ** this.retry++);
      this.timer = setTimeout(() => this.open(), wait);
    };
  }

  /** Calls a method of the order's agent; answers its result or throws its error. */
  call(method, params) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error('Not connected to the order. Wait a moment and try again.'));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
  }
}

const ZOOMS = [1, 1.25, 1.5, 2];

/** Dragging the drawing's background scrolls its box (a drag that starts on a node leaves the node's click alone). */
function panByDragging(wrap) {
  let from = null;
  wrap.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || e.target.closest('.node')) return;
    from = { x: e.clientX, y: e.clientY, left: wrap.scrollLeft, top: wrap.scrollTop };
    wrap.setPointerCapture(e.pointerId);
    wrap.classList.add('panning');
  });
  wrap.addEventListener('pointermove', (e) => {
    if (!from) return;
    wrap.scrollLeft = from.left - (e.clientX - from.x);
    wrap.scrollTop = from.top - (e.clientY - from.y);
  });
  const stop = () => { from = null; wrap.classList.remove('panning'); };
  wrap.addEventListener('pointerup', stop);
  wrap.addEventListener('pointercancel', stop);
}

/**
 * The approvals of the order that were decided (or escalated), from the timeline's close entries of approval waits:
 * { nodeId, title, outcome, by, note, at }, oldest first.
 */
export function decisions(state) {
  return (state?.timeline || []).filter((t) => t.kind === 'close:approval' && t.nodeId).map((t) => {
    const data = t.data || {};
    const title = String(t.message || '').split(': ')[0] || t.nodeId;
    return { nodeId: t.nodeId, title, outcome: data.decision || data.outcome || 'closed', by: data.by, note: data.note, at: t.at };
  });
}

/** "Approved by arne@example.com, 14/03/2026 10:02:11 (2 min ago), note: within budget". */
function decisionText(d) {
  const verb = d.outcome === 'approved' ? 'Approved' : d.outcome === 'rejected' ? 'Rejected'
    : d.outcome === 'escalated' ? 'Escalated' : 'Closed';
  const by = d.by && d.by !== 'timeout' ? ` by ${d.by}` : d.outcome === 'escalated' ? ' (nobody decided in time)' : '';
  return [`${verb}${by}, `, timeEl(d.at), ` (${ago(d.at)})`, d.note ? `, note: ${d.note}` : ''];
}

/**
 * The timeline as the page lists it: an approval's decision is said once, by the wait's close entry ("Approve order …:
 * approved by …, note: …"); the approval node's own entry after it ("Manager approval: Approved by …") is left out.
 */
export function timelineEntries(state) {
  const entries = state?.timeline || [];
  const closed = new Map(decisions(state).map((d) => [d.nodeId, d.at]));
  return entries.filter((t) => !(t.kind === 'node' && closed.has(t.nodeId) && Number(t.at) >= Number(closed.get(t.nodeId))));
}

export function orderPage(main, orderId) {
  let state = null;
  let selected = null;
  // the flow as steps or as a drawing: steps where the drawing would need panning (narrow screens) until changed here
  let view = matchMedia('(max-width: 640px)').matches ? 'steps' : 'drawing';
  let zoom = 1; // the drawing's scale: 1 draws its text at its own size; it is never shrunk below that
  let graphScroll = null; // where the drawing's box was scrolled to, kept across re-renders
  const undoing = new Set(); // waits and proposals in their undo window: their buttons stay disabled across pushes
  const notes = new Map(); // what the user typed, kept across re-renders
  const payments = new Map(); // by event wait: the payment reference and amount typed, kept across re-renders
  // What became of each action (by wait, proposal or 'cancel'): kept across re-renders until the next try, so a failed
  // call keeps its message and its Retry, and a success is shown once the server has answered
  const outcomes = new Map();
  const results = h('div', { id: 'results', 'aria-live': 'polite' });
  let connected = false;
  const live = h('span', { class: 'live off', id: 'live', role: 'status' }, 'Connecting…');
  const header = h('div', { class: 'order-head' });
  const summary = h('section', { class: 'panel', id: 'summary-panel', 'aria-labelledby': 'summary-h' });
  const graph = h('section', { class: 'panel', id: 'flow-panel', 'aria-labelledby': 'graph-h' });
  const details = h('section', { class: 'panel', id: 'node-details', 'aria-live': 'polite', 'aria-labelledby': 'details-h' });
  const waits = h('section', { class: 'panel', id: 'waits', 'aria-labelledby': 'waits-h', tabindex: -1 });
  const actions = h('section', { class: 'panel', id: 'order-actions', 'aria-labelledby': 'actions-h' });
  const timeline = h('section', { class: 'panel', id: 'timeline-panel', 'aria-labelledby': 'timeline-h' });
  const chat = h('section', { class: 'panel', id: 'chat', 'aria-labelledby': 'chat-h' });
  const chatInput = h('input', { id: 'chat-text', type: 'text', maxlength: 4000, autocomplete: 'off', placeholder: 'e.g. why is this order waiting?' });
  const chatStatus = h('div', { 'aria-live': 'polite' });
  // the scrolling lists and outputs take the focus, so a keyboard scrolls them too
  const chatLog = h('ol', { class: 'chat-log', id: 'chat-log', 'aria-label': 'Ops chat messages', tabindex: 0 });
  const cancelReason = h('input', { id: 'cancel-reason', type: 'text', placeholder: 'Cancelled by operator' });
  // operators only: the panel reads the flows, which a viewer needs no part of
  const migration = can('operator') ? migratePanel({
    orderId,
    redraw: () => { if (state) draw(); },
    done: (message) => { outcomes.set('migrate', { ok: true, message }); if (state) draw(); },
  }) : null;

  mount(main, h('a', { class: 'skip-inline', id: 'skip-to-actions', href: '#waits' }, 'Skip to the order\'s actions'),
    h('p', {}, h('a', { href: '/orders' }, '← Orders')), header,
    h('div', { class: 'grid2 order-grid' },
      h('div', { class: 'column' }, graph, details, timeline),
      h('div', { class: 'column' }, results, summary, waits, migration?.element, actions, chat)));
  mount(header, h('h1', {}, orderId), live);

  const socket = new OrderSocket(orderId, {
    onState: (next) => { state = next; draw(); },
    onStatus: (isLive, error) => {
      live.className = `live ${isLive ? 'on' : 'off'}`;
      live.textContent = isLive ? 'Live' : (error || 'Reconnecting…');
      if (connected !== isLive) {
        connected = isLive;
        if (state) draw();
      }
    },
    onEnded: (code) => {
      live.className = 'live off';
      if (code === 4404) {
        mount(main, h('h1', {}, 'Order not found'), h('p', {}, `There is no order ${orderId}. `, h('a', { href: '/orders' }, 'Back to the orders')));
      } else {
        live.textContent = 'Disconnected';
        mount(header, h('h1', {}, state?.order?.title || orderId), live, h('p', { class: 'error', role: 'alert' },
          'Your sign-in has ended. ', h('a', { href: location.pathname, onclick: () => location.reload() }, 'Reload the page to sign in again.')));
      }
    },
  });

  /** Re-renders the page from the state; whoever was typing keeps the focus and the caret (a push may come mid-word). */
  function draw() {
    const focused = document.activeElement?.id && main.contains(document.activeElement) ? document.activeElement : null;
    const caret = focused && typeof focused.selectionStart === 'number' ? [focused.selectionStart, focused.selectionEnd] : null;
    render();
    const again = focused && document.getElementById(focused.id);
    if (again && again !== document.activeElement) {
      again.focus({ preventScroll: true });
      if (caret && typeof again.setSelectionRange === 'function') again.setSelectionRange(...caret);
    }
  }

  function render() {
    const order = state.order || {};
    const ended = TERMINAL.includes(state.status);
    mount(header, h('h1', {}, order.title || state.orderId), h('p', { class: 'row' },
      h('span', { class: 'muted' }, state.orderId), h('span', { id: 'order-status', 'data-status': state.status }, badge(state.status)),
      state.reason ? h('span', { id: 'order-reason' }, state.reason) : null,
      can('operator') && (state.timeline || []).some((t) => t.kind === 'incident')
        ? h('a', { href: `/incidents?order=${encodeURIComponent(state.orderId)}`, id: 'order-incidents' }, 'Incidents')
        : null,
      live));

    mount(summary, h('h2', { id: 'summary-h' }, 'Order'),
      h('dl', { class: 'summary' },
        h('dt', {}, 'Type'), h('dd', {}, (order.type || '').replaceAll('_', ' ')),
        h('dt', {}, 'Customer'), h('dd', {}, order.customerId || '—'),
        h('dt', {}, 'Flow'), h('dd', { id: 'order-flow' }, `${state.flow?.flowId || ''} v${state.flow?.version ?? ''}`),
        h('dt', {}, 'Subtotal'), h('dd', {}, money(order.subtotal, order.currency)),
        h('dt', {}, 'Tax'), h('dd', {}, money(order.tax, order.currency)),
        h('dt', {}, 'Total'), h('dd', { id: 'order-total' }, h('strong', {}, money(order.total, order.currency)))),
      order.lines?.length ? h('div', { class: 'table-wrap' }, h('table', {},
        h('thead', {}, h('tr', {}, ['SKU', 'Item', 'Qty', 'Unit price'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, order.lines.map((l) => h('tr', {}, h('td', {}, l.sku), h('td', {}, l.name || ''),
          h('td', { class: 'num' }, String(l.qty)), h('td', { class: 'num' }, money(l.unitPrice, order.currency))))))) : null,
      state.rollback ? h('p', {}, `Rollback: ${state.rollback.outcome}${state.rollback.error ? ` — ${state.rollback.error}` : ''}`) : null);

    drawFlow();

    drawDetails();
    drawWaits(ended);
    if (migration) {
      if (ended) migration.element.hidden = true;
      else migration.draw(state);
    }

    mount(actions, h('h2', { id: 'actions-h' }, 'Cancel'),
      ended ? h('p', { class: 'muted' }, `The order has ended (${state.status.replace('_', ' ')}).`)
        : can('operator') ? h('form', {
          class: 'row', onsubmit: (e) => {
            e.preventDefault();
            const reason = cancelReason.value.trim();
            perform('cancel', `Cancel order ${state.orderId}`, () => socket.call('cancel', reason ? { reason } : {}),
              (result) => (result?.ok === false ? `Order ${state.orderId} had already ended.`
                : `Order ${state.orderId} cancelled.`));
          },
        }, field('Reason', cancelReason), h('button', {
          type: 'submit', class: 'danger', id: 'cancel-order', disabled: !connected || undoing.has('cancel'),
        }, 'Cancel order'))
          : h('p', { class: 'muted' }, 'Cancelling needs the operator role.'));

    const entries = timelineEntries(state);
    mount(timeline, h('h2', { id: 'timeline-h' }, 'Timeline'),
      entries.length
        ? h('ol', { class: 'timeline', id: 'timeline', tabindex: 0, 'aria-labelledby': 'timeline-h' },
          [...entries].reverse().map((t) =>
            h('li', { 'data-kind': t.kind }, timeEl(t.at), t.message,
              t.nodeId ? h('span', { class: 'muted' }, ` · ${t.nodeId}`) : '')))
        : h('p', { class: 'empty' }, 'Nothing has happened yet.'));

    drawChat();
  }

  /** The flow panel: the drawing (zoom buttons, a box that scrolls and pans) or the list of steps. */
  function drawFlow() {
    const old = graph.querySelector('.graph-wrap');
    if (old) graphScroll = [old.scrollLeft, old.scrollTop];
    const select = (id) => {
      selected = id;
      draw();
      graph.querySelector(`[data-node="${CSS.escape(id)}"]${view === 'steps' ? ' button' : ''}`)?.focus();
    };
    const show = (next) => h('button', {
      type: 'button', class: 'secondary', id: `view-${next}`, 'aria-pressed': view === next ? 'true' : 'false',
      onclick: () => { view = next; draw(); },
    }, next === 'steps' ? 'Steps' : 'Drawing');
    const zoomTo = (next) => {
      zoom = next;
      draw();
    };
    const tools = h('div', { class: 'row flow-tools', role: 'group', 'aria-label': 'Show the flow as' }, show('drawing'),
      show('steps'), view === 'drawing' ? [
        h('button', { type: 'button', class: 'secondary', id: 'zoom-out', 'aria-label': 'Zoom out',
          disabled: zoom <= ZOOMS[0], onclick: () => zoomTo(ZOOMS[Math.max(0, ZOOMS.indexOf(zoom) - 1)]) }, '−'),
        h('span', { id: 'zoom-level', class: 'muted' }, `${Math.round(zoom * 100)} %`),
        h('button', { type: 'button', class: 'secondary', id: 'zoom-in', 'aria-label': 'Zoom in',
          disabled: zoom >= ZOOMS[ZOOMS.length - 1],
          onclick: () => zoomTo(ZOOMS[Math.min(ZOOMS.length - 1, ZOOMS.indexOf(zoom) + 1)]) }, '+')] : null);
    if (view === 'steps') {
      mount(graph, h('h2', { id: 'graph-h' }, 'Flow'), tools, stepList(state, selected, select));
      return;
    }
    const wrap = h('div', { class: 'graph-wrap', id: 'graph-wrap' }, drawGraph(state, selected, select, zoom));
    panByDragging(wrap);
    mount(graph, h('h2', { id: 'graph-h' }, 'Flow'), tools, wrap, legend());
    if (graphScroll) [wrap.scrollLeft, wrap.scrollTop] = graphScroll;
  }

  /** What the graph draws for the node when it says more than the run's status (a node that can no longer run). */
  function drawnNote(node) {
    const look = drawnStates(state).nodes.get(node.id);
    if (!look || look.text === (state.nodes?.[node.id]?.status || 'pending')) return null;
    return [h('dt', {}, 'Drawn as'), h('dd', { id: 'node-drawn' }, look.text)];
  }

  /** The decision of an approval node, where the node's details would otherwise only show its summary. */
  function decisionNote(node) {
    const d = decisions(state).find((x) => x.nodeId === node.id);
    return d ? [h('dt', {}, 'Decision'), h('dd', { id: 'node-decision' }, decisionText(d))] : null;
  }

  function drawDetails() {
    const node = selected && state.flow?.graph?.nodes?.find((n) => n.id === selected);
    if (!node) {
      mount(details, h('h2', { id: 'details-h' }, 'Node details'), h('p', { class: 'muted' }, 'Select a node of the flow to see its runs, output and error.'));
      return;
    }
    const live = state.nodes?.[node.id] || {};
    mount(details, h('h2', { id: 'details-h' }, `Node: ${fill(node.title || node.id, state)}`),
      h('dl', { class: 'summary' },
        h('dt', {}, 'Id'), h('dd', {}, node.id), h('dt', {}, 'Type'), h('dd', {}, node.type),
        h('dt', {}, 'Status'), h('dd', { id: 'node-status' }, badge(live.status || 'pending')),
        drawnNote(node),
        decisionNote(node),
        live.summary && !decisions(state).some((d) => d.nodeId === node.id)
          ? [h('dt', {}, 'Summary'), h('dd', {}, live.summary)] : null,
        live.branches?.length ? [h('dt', {}, 'Branch'), h('dd', {}, live.branches.join(', '))] : null,
        h('dt', {}, 'Started'), h('dd', {}, time(live.startedAt)), h('dt', {}, 'Ended'), h('dd', {}, time(live.endedAt))),
      h('h3', {}, 'Runs'),
      live.runs?.length ? h('ol', {}, live.runs.map((r) => h('li', {}, `${time(r.startedAt)} → ${time(r.endedAt)} (${r.durationMs} ms)`)))
        : h('p', { class: 'muted' }, 'No runs.'),
      live.error ? [h('h3', {}, 'Error'), h('pre', { class: 'error', tabindex: 0 }, live.error)] : null,
      live.output != null ? [h('h3', {}, 'Output'), h('pre', { tabindex: 0 }, JSON.stringify(live.output, null, 2))]
        : null);
  }

  /**
   * Runs an action of this page after its undo window. Its buttons stay disabled meanwhile; what became of it is kept
   * in `outcomes` (drawn by drawResults) until the next try: a failure with the reason and a Retry, a success only once
   * the server has answered. Nothing is sent while the page is not connected.
   */
  async function perform(key, label, send, succeeded) {
    outcomes.delete(key);
    undoing.add(key);
    draw();
    let result;
    try {
      const sent = await withUndo(label, async () => {
        if (!connected) throw new Error('Not connected to the order, so nothing was sent.');
        result = await send();
      });
      if (sent) outcomes.set(key, { ok: true, message: succeeded(result) });
    } catch (e) {
      if (e.conflict) {
        // someone else decided first or the order ended: not an error to retry; drawResults says who and what
        outcomes.set(key, { ok: false, conflict: true, nodeId: e.conflict.nodeId, note: e.conflict.note });
        return;
      }
      outcomes.set(key, {
        ok: false, message: `${label}: not done. ${e.message || e}`,
        retry: () => perform(key, label, send, succeeded),
      });
    } finally {
      undoing.delete(key);
      if (state) draw();
    }
  }

  function drawResults() {
    const dismiss = (key) => h('button', {
      type: 'button', class: 'secondary dismiss', onclick: () => { outcomes.delete(key); draw(); },
    }, 'Dismiss');
    mount(results, [...outcomes].map(([key, o]) => (o.conflict ? conflictNotice(key, o) : o.ok
      ? h('p', { class: 'notice outcome', role: 'status', 'data-outcome': key }, o.message, dismiss(key))
      : h('div', { class: 'notice outcome failed', role: 'alert', 'data-outcome': key },
        h('p', { class: 'error' }, o.message),
        h('div', { class: 'row' },
          h('button', { type: 'button', class: 'retry', disabled: !connected || undoing.has(key), onclick: o.retry },
            connected ? 'Retry' : 'Retry (waiting for the connection)'),
          dismiss(key))))));
  }

  /** A decision that came too late: who decided what and when, the order's status now, the note kept to copy. */
  function conflictNotice(key, o) {
    const closed = closedApproval(state, o.nodeId);
    return h('div', { class: 'notice outcome conflict', role: 'status', 'data-outcome': key },
      h('p', { class: 'decided-elsewhere' }, closed.text, '. ', 'The order is ', badge(state.status), '.'),
      o.note ? h('p', { class: 'kept-note' }, 'Your note, not sent: ', h('q', { class: 'note-text' }, o.note), ' ',
        copyButton(o.note)) : null,
      h('button', {
        type: 'button', class: 'secondary dismiss', onclick: () => { outcomes.delete(key); draw(); },
      }, 'Dismiss'));
  }

  function drawWaits(ended) {
    drawResults();
    const open = state.waits || [];
    const offline = !connected && open.length && !ended
      ? h('p', { class: 'error', id: 'offline-note' },
        'Not connected: nothing can be sent until the page is live again.')
      : null;
    const decided = decisions(state);
    mount(waits, h('h2', { id: 'waits-h' }, 'Open waits'), offline, open.length ? open.map((w) => {
      const key = `${w.kind}:${w.nodeId}`;
      const busy = undoing.has(key) || !connected;
      let controls = null;
      if (w.kind === 'approval') {
        if (can('approver')) {
          const note = h('input', { type: 'text', class: 'note', id: `note-${w.nodeId}`, value: notes.get(w.nodeId) || '' });
          note.addEventListener('input', () => notes.set(w.nodeId, note.value));
          const decide = (decision) => () => {
            const params = { nodeId: w.nodeId, decision };
            const text = (notes.get(w.nodeId) || '').trim();
            if (text) params.note = text;
            const verb = decision === 'approved' ? 'Approve' : 'Reject';
            perform(key, `${verb} “${w.title}” on ${state.orderId}`, async () => {
              let result;
              try {
                result = await socket.call('decide', params);
              } catch (e) {
                if (e.status === 409) e.conflict = { nodeId: w.nodeId, note: text };
                throw e;
              }
              notes.delete(w.nodeId);
              return result;
            }, () => `${decision === 'approved' ? 'Approved' : 'Rejected'} “${w.title}”`
              + `${text ? ` with the note “${text}”` : ''}.`);
          };
          controls = h('div', {}, field('Note (optional)', note), h('div', { class: 'row' },
            h('button', { type: 'button', class: 'ok approve', disabled: busy, onclick: decide('approved') }, 'Approve'),
            h('button', { type: 'button', class: 'danger reject', disabled: busy, onclick: decide('rejected') }, 'Reject')));
        } else {
          controls = h('p', { class: 'muted' }, 'Deciding needs the approver role.');
        }
      } else if (can('operator')) {
        controls = deliverControls(w, key, busy);
      } else {
        controls = h('p', { class: 'muted' }, 'Delivering events needs the operator role.');
      }
      return h('div', { class: 'wait', 'data-wait': w.nodeId, 'data-kind': w.kind },
        h('strong', {}, w.title || w.event), h('div', { class: 'muted' },
          w.kind === 'approval' ? `Approval for ${w.assignee || 'manager'}` : `Waiting for ${w.event}`,
          w.amount != null ? ` · ${money(w.amount, state.order?.currency)}` : '',
          ` · since ${time(w.since)}`, w.deadline ? ` · deadline ${time(w.deadline)}` : ''),
        controls);
    }) : h('p', { class: 'empty', id: 'no-waits' }, ended ? 'The order has ended.' : 'Nothing is waiting.'),
    decided.length ? [h('h3', {}, 'Decided'), decided.map((d) => h('div', {
      class: 'wait decision', 'data-decision': d.nodeId, 'data-outcome': d.outcome,
    }, h('strong', {}, d.title), h('p', { class: 'decided-by' }, decisionText(d))))] : null);
  }

  /**
   * Delivering an event, with an optional payment reference and amount (back office entering a payment): the payload
   * is { source: 'dashboard', amount } as the contract has it, the amount the order total unless one is typed, plus
   * { reference, currency } when a reference is given. The agent checks them (a positive amount in the order's
   * currency, a reference of at most 64 characters) and the timeline shows them.
   */
  function deliverControls(w, key, busy) {
    const typed = payments.get(w.nodeId) || { reference: '', amount: '' };
    const currency = state.order?.currency || 'USD';
    const reference = h('input', {
      type: 'text', class: 'payment-reference', id: `reference-${w.nodeId}`, maxlength: 64, value: typed.reference,
      autocomplete: 'off',
    });
    const amount = h('input', {
      type: 'number', class: 'payment-amount', id: `amount-${w.nodeId}`, min: '0.01', step: '0.01',
      inputmode: 'decimal', value: typed.amount,
      placeholder: state.order?.total != null ? String(state.order.total) : '',
    });
    const remember = () => payments.set(w.nodeId, { reference: reference.value, amount: amount.value });
    reference.addEventListener('input', remember);
    amount.addEventListener('input', remember);
    const deliver = () => {
      const payload = { source: 'dashboard', amount: state.order?.total };
      const ref = reference.value.trim();
      if (amount.value.trim()) payload.amount = Number(amount.value);
      if (ref) Object.assign(payload, { reference: ref, currency });
      const label = `Deliver ${w.event} to ${state.orderId}${ref ? ` (reference ${ref})` : ''}`;
      perform(key, label, async () => {
        if (amount.value.trim() && !(Number(amount.value) > 0)) {
          throw new Error(`The amount must be a positive number in ${currency}.`);
        }
        const result = await socket.call('deliver', { event: w.event, payload });
        payments.delete(w.nodeId);
        return result;
      }, (result) => (result?.delivered ? `Delivered ${w.event} to ${result.nodeId}.`
        : 'Nobody was waiting any more.'));
    };
    return h('div', {},
      h('div', { class: 'row' },
        field('Payment reference (optional)', reference), field(`Amount (${currency})`, amount)),
      h('button', { type: 'button', class: 'deliver', disabled: busy, onclick: deliver }, `Deliver ${w.event}`));
  }

  function drawChat() {
    const messages = state.chat || [];
    mount(chatLog, messages.length ? messages.map((m) => h('li', { class: m.role, 'data-role': m.role },
      h('div', { class: 'muted' }, `${m.role === 'user' ? (m.by || 'You') : m.role === 'tool' ? `Tool ${m.tool || ''}` : 'Assistant'} · ${time(m.at)}`),
      h('div', {}, m.text || ''),
      m.proposal ? proposal(m.proposal) : null)) : h('li', { class: 'muted' }, 'Ask about this order: its status, what it waits for, or to approve, reject or cancel it (you confirm every proposal).'));
    if (!chat.contains(chatLog)) {
      mount(chat, h('h2', { id: 'chat-h' }, 'Ops chat'), chatLog, h('form', {
        class: 'row', onsubmit: (e) => {
          e.preventDefault();
          const text = chatInput.value.trim();
          if (!text) return;
          act(e.submitter, chatStatus, async () => {
            mount(chatStatus, h('span', { class: 'muted' }, 'Thinking…'));
            await socket.call('chat', { text });
            chatInput.value = '';
            mount(chatStatus);
          });
        },
      }, field('Message', chatInput), h('button', { type: 'submit', id: 'chat-send' }, 'Send'), chatStatus));
    }
    chatLog.scrollTop = chatLog.scrollHeight;
  }

  function proposal(p) {
    const label = p.kind === 'cancel' ? `Cancel the order${p.reason ? ` (${p.reason})` : ''}`
      : `${p.decision === 'rejected' ? 'Reject' : 'Approve'} “${(state.waits || []).find((w) => w.nodeId === p.nodeId)?.title || p.nodeId || 'the approval'}”`;
    const allowed = p.kind === 'cancel' ? can('operator') : can('approver');
    const key = `proposal:${p.id}`;
    const confirm = () => perform(key, label, () => (p.kind === 'cancel'
      ? socket.call('cancel', { ...(p.reason ? { reason: p.reason } : {}), proposalId: p.id })
      : socket.call('decide', {
        nodeId: p.nodeId, decision: p.decision, ...(p.reason ? { note: p.reason } : {}), proposalId: p.id,
      })),
    () => `Confirmed: ${label}.`);
    return h('div', { class: 'proposal', 'data-proposal': p.id, 'data-status': p.status },
      h('strong', {}, 'Proposal: '), label, ' ', badge(p.status === 'open' ? 'open' : p.status, p.status === 'open' ? 'waiting' : 'completed'),
      p.status === 'open' && allowed ? h('div', {}, h('button', {
        type: 'button', class: 'ok confirm-proposal', disabled: undoing.has(key) || !connected, onclick: confirm,
      }, 'Confirm')) : p.status === 'open'
        ? h('p', { class: 'muted' }, `Confirming needs the ${p.kind === 'cancel' ? 'operator' : 'approver'} role.`)
        : null);
  }

  return () => socket.close();
}
