// The flow graph of an order: laid out by dagre (assets/vendor/dagre.esm.js) from state.flow.graph, drawn as SVG.
import { h, fill } from './lib.js';
import { Graph, layout as dagreLayout } from './vendor/dagre.esm.js';

const W = 176, H = 62, GAP_X = 28, GAP_Y = 48, PAD = 20, LABEL_H = 16;
const LINE_CHARS = 22;
const STATUS_CHARS = 26;

/** A title on at most two lines of about LINE_CHARS characters, broken between words; the rest ends in "…". */
export function wrapTitle(title) {
  const words = String(title).split(/\s+/).filter(Boolean);
  const lines = [''];
  for (const word of words) {
    const line = lines[lines.length - 1];
    if (!line) lines[lines.length - 1] = word;
    else if (line.length + 1 + word.length <= LINE_CHARS) lines[lines.length - 1] = `${line} ${word}`;
    else lines.push(word);
  }
  const clip = (text) => (text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS - 1)}…` : text);
  if (lines.length <= 2) return lines.map(clip);
  return [clip(lines[0]), `${lines[1].slice(0, LINE_CHARS - 1)}…`];
}

const TERMINAL_STATUSES = ['completed', 'declined', 'cancelled', 'failed', 'rolled_back'];

/**
 * How each node and edge of an order is drawn, from the order's state: the one rule the graph and the step list
 * follow. The run reports a node as it last saw it, so a node that can no longer run may still say `pending`; this
 * reads the order as a whole.
 *
 * - A node that ran keeps its status (running, waiting, succeeded, failed, rolled back); an Approval node that
 *   finished shows its decision (approved, rejected, escalated).
 * - An End node that ran is `ended` with its outcome; any outcome but `completed` is drawn as a failure.
 * - A node that succeeded but took a branch from which no End with outcome `completed` can be reached (Reserve stock
 *   on `out_of_stock`, a refund on `failed`) is on the failure path (`path: 'failure'`), not drawn as a success.
 * - A node that has not run (`pending`, or `skipped` by the run) is `pending` only while the order is live and the
 *   node can still be reached from a node that runs, waits or is about to run, over any edge of the graph (a loop
 *   included). Otherwise it can no longer run: `skipped` with the reason `not taken` when the branch to it was not
 *   taken, `not_reached` when a path to it was still open as the order ended, and `skipped` (cut short) when it had
 *   started and a cancel ended it.
 * - An edge is `active` (taken; `failure` too when it leads onto the failure path) or `inactive` (not taken) as the
 *   run reported it; a `pending` edge is drawn `inactive` when the node it leaves can no longer run.
 *
 * Answers { nodes: Map(id → { status, raw, outcome, reason, path, text }), edges: Map(id → { status, failure }) },
 * where `text` is the node's status line.
 */
export function drawnStates(state) {
  const graph = state?.flow?.graph || {};
  const nodes = graph.nodes || [];
  const ids = new Set(nodes.map((n) => n.id));
  const edges = (graph.edges || []).filter((e) => ids.has(e.from) && ids.has(e.to));
  const live = (id) => state?.nodes?.[id] || {};
  const rawOf = (id) => live(id).status || 'pending';
  const edgeOf = (e) => state?.edges?.[e.id] || 'pending';
  const outgoing = new Map(nodes.map((n) => [n.id, []]));
  const incoming = new Map(nodes.map((n) => [n.id, []]));
  edges.forEach((e) => { outgoing.get(e.from).push(e); incoming.get(e.to).push(e); });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const isEnd = (n) => n.type === 'end';
  const endOutcome = (n) => live(n.id).output?.outcome || n.settings?.outcome || 'completed';
  const ended = TERMINAL_STATUSES.includes(state?.status);
  const started = (id) => Boolean(live(id).startedAt || live(id).runs?.length);
  const notRun = (id) => ['pending', 'skipped'].includes(rawOf(id));

  // every node from which an End with outcome completed can be reached, over any edge
  const canComplete = closure(nodes.filter((n) => isEnd(n) && endOutcome(n) === 'completed').map((n) => n.id),
    (id) => incoming.get(id).map((e) => e.from));
  const hasHappyEnd = canComplete.size > 0;

  // the nodes that can still run: reachable over any edge from what runs, waits or is about to run
  let canRun = new Set();
  if (!ended) {
    const frontier = nodes.filter((n) => ['running', 'waiting'].includes(rawOf(n.id))
      || (rawOf(n.id) === 'pending' && incoming.get(n.id).some((e) => edgeOf(e) === 'active'))).map((n) => n.id);
    const fresh = nodes.every((n) => rawOf(n.id) === 'pending');
    if (fresh) frontier.push(...nodes.filter((n) => !incoming.get(n.id).length).map((n) => n.id));
    // with nothing running, waiting or ready (between two reports), nothing is ruled out
    canRun = frontier.length ? closure(frontier, (id) => outgoing.get(id).map((e) => e.to)) : new Set(ids);
  }
  // the nodes a path was still open to: reachable from a node that ran, over edges not marked not taken
  const ran = nodes.filter((n) => !notRun(n.id) || started(n.id)).map((n) => n.id);
  const open = closure(ran, (id) => outgoing.get(id).filter((e) => edgeOf(e) !== 'inactive').map((e) => e.to));

  const drawnNodes = new Map();
  for (const node of nodes) {
    const raw = rawOf(node.id);
    const look = { status: raw, raw, outcome: null, reason: null, path: null };
    if (isEnd(node) && raw === 'succeeded') {
      look.status = 'ended';
      look.outcome = endOutcome(node);
      if (look.outcome !== 'completed') look.path = 'failure';
    } else if (notRun(node.id)) {
      if (canRun.has(node.id)) look.status = 'pending';
      else if (raw === 'skipped' && started(node.id)) look.status = 'skipped';
      else if (open.has(node.id)) look.status = 'not_reached';
      else { look.status = 'skipped'; look.reason = 'not taken'; }
    } else if (raw === 'succeeded') {
      const branch = (live(node.id).branches || [])[0];
      if (node.type === 'approval' && ['approved', 'rejected', 'escalated'].includes(branch)) look.outcome = branch;
      const taken = outgoing.get(node.id).filter((e) => edgeOf(e) === 'active');
      if (hasHappyEnd && taken.length && !taken.some((e) => canComplete.has(e.to))) {
        look.path = 'failure';
        look.reason = branch || null;
      }
    }
    look.text = statusLine(look);
    drawnNodes.set(node.id, look);
  }
  const drawnEdges = new Map();
  for (const edge of edges) {
    let status = edgeOf(edge);
    if (status === 'pending' && !canRun.has(edge.from)) status = 'inactive';
    const failure = status === 'active' && hasHappyEnd && !canComplete.has(edge.to);
    drawnEdges.set(edge.id, { status, failure });
  }
  return { nodes: drawnNodes, edges: drawnEdges, byId };
}

/** The status line of a drawn node, e.g. "succeeded · approved", "skipped · not taken", "ended · declined". */
function statusLine(look) {
  const words = { not_reached: 'not reached', rolled_back: 'rolled back' };
  const head = words[look.status] || look.status;
  const tail = look.outcome || look.reason;
  return tail ? `${head} · ${String(tail).replaceAll('_', ' ')}` : head;
}

/** Every id reachable from `start` (included) by `next`. */
function closure(start, next) {
  const seen = new Set(start);
  const queue = [...start];
  while (queue.length) {
    for (const id of next(queue.pop())) {
      if (!seen.has(id)) { seen.add(id); queue.push(id); }
    }
  }
  return seen;
}

/** An edge label's box for the layout: about 6.6 px a character at the labels' 11 px, plus a margin. */
function labelSize(text) {
  return { width: Math.ceil(String(text).length * 6.6 + 10), height: LABEL_H };
}

/**
 * Places the nodes with dagre (layered top to bottom, crossings reduced, loops reversed for the layering) and routes
 * every edge around the nodes, with room kept for its label so labels overlap neither each other nor a node. Answers
 * the nodes' top-left corners, each edge's route (points) and label centre, and the drawing's size.
 */
export function layout(graph) {
  const nodes = graph?.nodes || [];
  const ids = new Set(nodes.map((node) => node.id));
  const edges = (graph?.edges || []).filter((edge) => ids.has(edge.from) && ids.has(edge.to));
  const g = new Graph({ multigraph: true });
  g.setGraph({ rankdir: 'TB', nodesep: GAP_X, ranksep: GAP_Y, edgesep: 14, marginx: PAD, marginy: PAD });
  nodes.forEach((node) => g.setNode(node.id, { width: W, height: H }));
  edges.forEach((edge, i) => g.setEdge(edge.from, edge.to,
    edge.branch ? { ...labelSize(edge.branch), labelpos: 'c' } : { width: 0, height: 0 }, edge.id ?? `e${i}`));
  dagreLayout(g);
  const positions = new Map();
  nodes.forEach((node) => {
    const placed = g.node(node.id);
    positions.set(node.id, { x: placed.x - W / 2, y: placed.y - H / 2 });
  });
  const routes = new Map();
  edges.forEach((edge, i) => {
    const placed = g.edge({ v: edge.from, w: edge.to, name: edge.id ?? `e${i}` });
    routes.set(edge, { points: placed.points, label: edge.branch ? { x: placed.x, y: placed.y } : null });
  });
  const { width, height } = g.graph();
  return { positions, routes, width: Math.ceil(width), height: Math.ceil(height) };
}

/** A smooth path through the route's points (a uniform cubic B-spline, as d3's curveBasis draws). */
export function curve(points) {
  const f = (n) => Math.round(n * 10) / 10;
  if (points.length < 3) return points.map((p, i) => `${i ? 'L' : 'M'} ${f(p.x)} ${f(p.y)}`).join(' ');
  const [a, b] = points;
  let d = `M ${f(a.x)} ${f(a.y)} L ${f((5 * a.x + b.x) / 6)} ${f((5 * a.y + b.y) / 6)}`;
  let p0 = a, p1 = b;
  const segment = (p) => {
    d += ` C ${f((2 * p0.x + p1.x) / 3)} ${f((2 * p0.y + p1.y) / 3)}, ${f((p0.x + 2 * p1.x) / 3)} `
      + `${f((p0.y + 2 * p1.y) / 3)}, ${f((p0.x + 4 * p1.x + p.x) / 6)} ${f((p0.y + 4 * p1.y + p.y) / 6)}`;
    p0 = p1;
    p1 = p;
  };
  points.slice(2).forEach(segment);
  segment(p1);
  return `${d} L ${f(p1.x)} ${f(p1.y)}`;
}

/** The status line clipped to what fits a node box at its 11 px. */
function fitLine(text) {
  return text.length > STATUS_CHARS ? `${text.slice(0, STATUS_CHARS - 1)}…` : text;
}

/**
 * Draws the graph at `zoom` (1 = the text at its own size: titles 12 px, status lines and edge labels 11 px; the
 * drawing is never shrunk to fit, its box scrolls and pans instead): nodes and edges as `drawnStates` says, the state
 * in each node's text too. `onSelect(nodeId)` is called on click, Enter or Space.
 */
export function drawGraph(state, selected, onSelect, zoom = 1) {
  const graph = state.flow?.graph;
  if (!graph?.nodes?.length) return h('p', { class: 'empty' }, 'This order has no flow graph.');
  const { positions, routes, width, height } = layout(graph);
  const drawn = drawnStates(state);
  const svg = h('svg:svg', {
    class: 'graph', viewBox: `0 0 ${width} ${height}`, width: Math.round(width * zoom),
    height: Math.round(height * zoom), role: 'group', 'data-zoom': zoom,
    'aria-label': `Flow ${graph.name || graph.id}: ${graph.nodes.length} nodes`,
  });
  svg.append(h('svg:defs', {}, ['active', 'failure', 'pending', 'inactive'].map((kind) =>
    h('svg:marker', { id: `arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
      h('svg:path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: ARROW[kind] })))));
  for (const [edge, route] of routes) {
    const { status, failure } = drawn.edges.get(edge.id) || { status: 'pending', failure: false };
    const label = route.label ? labelSize(edge.branch) : null;
    svg.append(h('svg:g', { class: `edge ${status}${failure ? ' failure' : ''}`, 'data-edge': edge.id, 'data-state': status },
      h('svg:title', {}, `${edge.from} → ${edge.to}${edge.branch ? ` (${edge.branch})` : ''}: ${EDGE_WORDS[status]}`),
      h('svg:path', { d: curve(route.points), 'marker-end': `url(#arrow-${failure ? 'failure' : status})` }),
      label ? h('svg:rect', {
        class: 'edge-label', x: route.label.x - label.width / 2, y: route.label.y - label.height / 2,
        width: label.width, height: label.height, rx: 3,
      }) : null,
      label ? h('svg:text', { x: route.label.x, y: route.label.y + 4, 'text-anchor': 'middle' }, edge.branch)
        : null));
  }
  for (const node of graph.nodes) {
    const pos = positions.get(node.id);
    const look = drawn.nodes.get(node.id);
    const title = fill(node.title || node.id, state);
    const lines = wrapTitle(title);
    const shown = fitLine(look.text);
    const g = h('svg:g', {
      class: nodeClass(node, look, selected),
      tabindex: 0, role: 'button', 'data-node': node.id, 'data-status': look.status, 'data-raw-status': look.raw,
      'data-outcome': look.outcome, 'data-path': look.path, 'data-type': node.type,
      // the name holds the text on screen (the title as wrapped, then the status line); the full title and the
      // node's type are in the <title>, the tooltip
      'aria-label': `${lines.join(' ')}, ${shown}. Show details`,
      'aria-pressed': selected === node.id ? 'true' : 'false',
      transform: `translate(${pos.x} ${pos.y})`,
    },
    h('svg:title', {}, `${title} (${node.type})`),
    h('svg:rect', { width: W, height: H, rx: 8 }),
    // a space between the <text> elements (not drawn) keeps their words apart in the text assistive tools read
    lines.map((line, i) => [i ? ' ' : null, h('svg:text', { x: 8, y: 18 + i * 15, class: 'node-title' }, line)]),
    ' ', h('svg:text', { x: 8, y: H - 9, class: 'node-status' }, shown));
    g.addEventListener('click', () => onSelect(node.id));
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onSelect(node.id); }
    });
    svg.append(g);
  }
  return svg;
}

const ARROW = { active: '#1a7f37', failure: '#a4161a', pending: '#8c959f', inactive: '#c4c9cf' };
const EDGE_WORDS = { active: 'taken', pending: 'not yet', inactive: 'not taken' };

function nodeClass(node, look, selected) {
  return ['node', look.status, node.type === 'end' ? 'end' : null, look.outcome ? `outcome-${look.outcome}` : null,
    look.path === 'failure' ? 'failure-path' : null, look.reason === 'not taken' ? 'not-taken' : null,
    selected === node.id ? 'selected' : null].filter(Boolean).join(' ');
}

/**
 * The flow as a list of steps, in the drawing's order (top to bottom, then left to right), each with its drawn state;
 * for narrow screens, where the drawing needs panning. A step is a button that selects its node.
 */
export function stepList(state, selected, onSelect) {
  const graph = state.flow?.graph;
  if (!graph?.nodes?.length) return h('p', { class: 'empty' }, 'This order has no flow graph.');
  const { positions } = layout(graph);
  const drawn = drawnStates(state);
  const ordered = [...graph.nodes].sort((a, b) => positions.get(a.id).y - positions.get(b.id).y
    || positions.get(a.id).x - positions.get(b.id).x);
  return h('ol', { class: 'steps', id: 'steps', 'aria-label': `Flow ${graph.name || graph.id}: steps` },
    ordered.map((node) => {
      const look = drawn.nodes.get(node.id);
      return h('li', { class: nodeClass(node, look, selected).replace(/^node /, 'step '), 'data-node': node.id,
        'data-status': look.status, 'data-outcome': look.outcome, 'data-path': look.path },
      h('button', { type: 'button', class: 'step-button', 'aria-pressed': selected === node.id ? 'true' : 'false',
        onclick: () => onSelect(node.id) },
      h('span', { class: 'step-title' }, fill(node.title || node.id, state)),
      h('span', { class: 'step-status' }, look.text)));
    }));
}

export function legend() {
  return h('div', { class: 'legend', 'aria-hidden': 'true' },
    ['pending', 'running', 'waiting', 'succeeded', 'failed', 'rolled_back'].map((s) =>
      h('span', { class: `badge ${s}`, style: `background: var(--s-${s})` }, s.replace('_', ' '))),
    h('span', { class: 'badge skipped-node' }, 'skipped / not reached'),
    h('span', { class: 'badge failure-node' }, 'failure path'),
    h('span', { class: 'badge escalated-node' }, 'escalated approval'),
    h('span', {}, 'Edges: green = taken, red = into a failure, grey = not yet, dashed = not taken'));
}
