// The flow graph of an order: laid out by dagre (assets/vendor/dagre.esm.js) from state.flow.graph, drawn as SVG.
import { h, fill } from './lib.js';
import { Graph, layout as dagreLayout } from './vendor/dagre.esm.js';

const W = 168, H = 62, GAP_X = 28, GAP_Y = 48, PAD = 20, LABEL_H = 14;
const LINE_CHARS = 24;

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

/**
 * What a node shows: its status, and for an Approval node that finished, how it was decided (an escalation, where
 * nobody decided before the timeout, is not an approval).
 */
export function nodeLook(node, live) {
  const status = live?.status || 'pending';
  const branch = node.type === 'approval' && status === 'succeeded' ? (live.branches || [])[0] : null;
  return { status, outcome: ['approved', 'rejected', 'escalated'].includes(branch) ? branch : null };
}

/** An edge label's box for the layout: about 6 px a character at the labels' 10 px, plus a margin. */
function labelSize(text) {
  return { width: String(text).length * 6 + 10, height: LABEL_H };
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

/**
 * Draws the graph: nodes coloured by status (the status is in the label too), edges active, inactive or pending.
 * `onSelect(nodeId)` is called on click, Enter or Space.
 */
export function drawGraph(state, selected, onSelect) {
  const graph = state.flow?.graph;
  if (!graph?.nodes?.length) return h('p', { class: 'empty' }, 'This order has no flow graph.');
  const { positions, routes, width, height } = layout(graph);
  const svg = h('svg:svg', {
    class: 'graph', viewBox: `0 0 ${width} ${height}`, width, role: 'group',
    'aria-label': `Flow ${graph.name || graph.id}: ${graph.nodes.length} nodes`,
  });
  svg.append(h('svg:defs', {}, ['active', 'pending', 'inactive'].map((kind) =>
    h('svg:marker', { id: `arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
      h('svg:path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: kind === 'active' ? '#1a7f37' : kind === 'pending' ? '#8c959f' : '#c4c9cf' })))));
  for (const [edge, route] of routes) {
    const status = state.edges?.[edge.id] || 'pending';
    const label = route.label ? labelSize(edge.branch) : null;
    svg.append(h('svg:g', { class: `edge ${status}`, 'data-edge': edge.id },
      h('svg:title', {}, `${edge.from} → ${edge.to}${edge.branch ? ` (${edge.branch})` : ''}: ${status}`),
      h('svg:path', { d: curve(route.points), 'marker-end': `url(#arrow-${status})` }),
      label ? h('svg:rect', {
        class: 'edge-label', x: route.label.x - label.width / 2, y: route.label.y - label.height / 2,
        width: label.width, height: label.height, rx: 3,
      }) : null,
      label ? h('svg:text', { x: route.label.x, y: route.label.y + 3.5, 'text-anchor': 'middle' }, edge.branch)
        : null));
  }
  for (const node of graph.nodes) {
    const pos = positions.get(node.id);
    const { status, outcome } = nodeLook(node, state.nodes?.[node.id]);
    const title = fill(node.title || node.id, state);
    const lines = wrapTitle(title);
    const shown = outcome ? `${status} · ${outcome}` : `${status} · ${node.type}`;
    const g = h('svg:g', {
      class: `node ${status}${outcome ? ` outcome-${outcome}` : ''}${selected === node.id ? ' selected' : ''}`,
      tabindex: 0, role: 'button', 'data-node': node.id, 'data-status': status, 'data-outcome': outcome,
      // the name holds the text on screen (the title as wrapped, then the status line); the full title is in the
      // <title>, the tooltip
      'aria-label': `${lines.join(' ')}, ${shown}. Show details`,
      'aria-pressed': selected === node.id ? 'true' : 'false',
      transform: `translate(${pos.x} ${pos.y})`,
    },
    h('svg:title', {}, title),
    h('svg:rect', { width: W, height: H, rx: 8 }),
    // a space between the <text> elements (not drawn) keeps their words apart in the text assistive tools read
    lines.map((line, i) => [i ? ' ' : null, h('svg:text', { x: 8, y: 17 + i * 15, class: 'node-title' }, line)]),
    ' ', h('svg:text', { x: 8, y: H - 9, class: 'node-status' }, shown));
    g.addEventListener('click', () => onSelect(node.id));
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onSelect(node.id); }
    });
    svg.append(g);
  }
  return svg;
}

export function legend() {
  return h('div', { class: 'legend', 'aria-hidden': 'true' },
    ['pending', 'running', 'waiting', 'succeeded', 'failed', 'skipped', 'rolled_back'].map((s) =>
      h('span', { class: `badge ${s}`, style: `background: var(--s-${s})` }, s.replace('_', ' '))),
    h('span', { class: 'badge escalated-node' }, 'escalated approval'),
    h('span', {}, 'Edges: green = taken, grey = not yet, dashed = not taken'));
}
