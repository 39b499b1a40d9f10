// The flow graph of an order: a layered layout computed from state.flow.graph, drawn as SVG.
import { h, fill } from './lib.js';

const W = 168, H = 62, GAP_X = 28, GAP_Y = 56, PAD = 20;
const LINE_CHARS = 24;

/**
 * Layers: the longest path from the start node (the first node) over the edges that do not loop back (found by a
 * depth-first walk), so every forward edge points down; nodes the start does not reach go last.
 */
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

export function layout(graph) {
  const nodes = graph?.nodes || [];
  const edges = graph?.edges || [];
  const depth = new Map();
  const forward = [];
  if (nodes.length) {
    const state = new Map(); // 1 = on the walk's path, 2 = done
    const walk = (id) => {
      state.set(id, 1);
      for (const edge of edges) {
        if (edge.from !== id) continue;
        if (state.get(edge.to) === 1) continue; // loops back
        forward.push(edge);
        if (!state.has(edge.to)) walk(edge.to);
      }
      state.set(id, 2);
    };
    walk(nodes[0].id);
    depth.set(nodes[0].id, 0);
    for (let changed = true, rounds = 0; changed && rounds <= nodes.length; rounds++) {
      changed = false;
      for (const edge of forward) {
        const next = depth.has(edge.from) ? depth.get(edge.from) + 1 : undefined;
        if (next !== undefined && (!depth.has(edge.to) || depth.get(edge.to) < next)) {
          depth.set(edge.to, next);
          changed = true;
        }
      }
    }
  }
  const deepest = Math.max(0, ...depth.values());
  nodes.forEach((node) => { if (!depth.has(node.id)) depth.set(node.id, deepest + 1); });
  const layers = [];
  nodes.forEach((node) => { (layers[depth.get(node.id)] ||= []).push(node); });
  const widest = Math.max(1, ...layers.map((layer) => (layer || []).length));
  const width = PAD * 2 + widest * W + (widest - 1) * GAP_X;
  const positions = new Map();
  layers.forEach((layer, row) => {
    if (!layer) return;
    const rowWidth = layer.length * W + (layer.length - 1) * GAP_X;
    const left = (width - rowWidth) / 2;
    layer.forEach((node, i) => positions.set(node.id, { x: left + i * (W + GAP_X), y: PAD + row * (H + GAP_Y), row }));
  });
  const height = PAD * 2 + layers.length * H + Math.max(0, layers.length - 1) * GAP_Y;
  return { positions, width, height };
}

/**
 * Draws the graph: nodes coloured by status (the status is in the label too), edges active, inactive or pending.
 * `onSelect(nodeId)` is called on click, Enter or Space.
 */
export function drawGraph(state, selected, onSelect) {
  const graph = state.flow?.graph;
  if (!graph?.nodes?.length) return h('p', { class: 'empty' }, 'This order has no flow graph.');
  const { positions, width, height } = layout(graph);
  const svg = h('svg:svg', {
    class: 'graph', viewBox: `0 0 ${width} ${height}`, width, role: 'group',
    'aria-label': `Flow ${graph.name || graph.id}: ${graph.nodes.length} nodes`,
  });
  svg.append(h('svg:defs', {}, ['active', 'pending', 'inactive'].map((kind) =>
    h('svg:marker', { id: `arrow-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' },
      h('svg:path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: kind === 'active' ? '#1a7f37' : kind === 'pending' ? '#8c959f' : '#c4c9cf' })))));
  for (const edge of graph.edges || []) {
    const from = positions.get(edge.from), to = positions.get(edge.to);
    if (!from || !to) continue;
    const status = state.edges?.[edge.id] || 'pending';
    let d, lx, ly;
    const x1 = from.x + W / 2, y1 = from.y + H, x2 = to.x + W / 2, y2 = to.y;
    if (to.row > from.row) {
      const mid = (y1 + y2) / 2;
      d = `M ${x1} ${y1} C ${x1} ${mid}, ${x2} ${mid}, ${x2} ${y2 - 2}`;
      lx = (x1 + x2) / 2; ly = mid - 3;
    } else { // a loop back: around the right side
      const side = Math.max(from.x, to.x) + W + GAP_X / 2;
      d = `M ${from.x + W} ${from.y + H / 2} C ${side + 30} ${from.y + H / 2}, ${side + 30} ${to.y + H / 2}, ${to.x + W + 2} ${to.y + H / 2}`;
      lx = side + 4; ly = (from.y + to.y) / 2 + H / 2;
    }
    svg.append(h('svg:g', { class: `edge ${status}`, 'data-edge': edge.id },
      h('svg:title', {}, `${edge.from} → ${edge.to}${edge.branch ? ` (${edge.branch})` : ''}: ${status}`),
      h('svg:path', { d, 'marker-end': `url(#arrow-${status})` }),
      edge.branch ? h('svg:text', { x: lx, y: ly, 'text-anchor': 'middle' }, edge.branch) : null));
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
      'aria-label': `${title} (${node.type}): ${status}${outcome ? `, ${outcome}` : ''}. Show details`,
      'aria-pressed': selected === node.id ? 'true' : 'false',
      transform: `translate(${pos.x} ${pos.y})`,
    },
    h('svg:title', {}, title),
    h('svg:rect', { width: W, height: H, rx: 8 }),
    lines.map((line, i) => h('svg:text', { x: 8, y: 17 + i * 15, class: 'node-title' }, line)),
    h('svg:text', { x: 8, y: H - 9, class: 'node-status' }, shown));
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
