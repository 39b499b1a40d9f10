// The System page (operators): each service's readiness, orders per second, orders in flight by status, consumer lag,
// the stores being restored after an unclean stop and incidents, from GET /api/v1/system, which reads the meters
// Prometheus scrapes. Refreshed every 5 seconds.
import { h, mount, api, can, errorBox, table, time } from './lib.js';

const REFRESH_MS = 5000;

function readiness(status) {
  const up = status === 'UP';
  return h('span', { class: `badge ${up ? 'succeeded' : 'failed'}` }, up ? 'ready' : 'not ready');
}

/** A rate over the last minute; the first answer has none yet (a rate needs two readings, 5 s apart). */
function rate(value) {
  if (value === null || value === undefined) return 'in 5 s';
  return `${Number(value).toLocaleString(undefined, { maximumFractionDigits: 2 })}/s`;
}

function figures(id, entries, empty) {
  if (!entries.length) return h('p', { class: 'muted', id }, empty);
  return h('ul', { class: 'counts', id }, entries.map(([name, n]) =>
    h('li', { 'data-name': name }, `${String(name).replace('_', ' ')} `, h('strong', { class: 'n' }, String(n)))));
}

/** Stores a service restores from its changelogs after an unclean stop: it is not ready until they are whole. */
function restoring(restores) {
  if (!restores.length) return [];
  return [h('h2', {}, 'Restoring stores'),
    h('ul', { class: 'counts', id: 'restores' }, restores.map((r) => {
      const percent = r.total > 0 ? Math.floor((100 * r.restored) / r.total) : 0;
      return h('li', { 'data-application': r.application },
        `${r.application} restoring: `, h('strong', {}, `${percent}%`),
        ` (${Number(r.restored).toLocaleString()} of ${Number(r.total).toLocaleString()} records)`);
    }))];
}

function render(view, s) {
  const services = table(['Service', 'Readiness', 'Parts'], s.services.map((service) =>
    h('tr', { 'data-service': service.name, 'data-status': service.status },
      h('th', { scope: 'row' }, service.name),
      h('td', {}, readiness(service.status)),
      h('td', {}, Object.entries(service.parts || {}).map(([part, status]) =>
        h('span', { class: 'part', 'data-part': part }, `${part} `, h('strong', {}, status), ' '))))));
  const orders = s.orders || {};
  const inFlight = Object.entries(orders.inFlight || {});
  const lag = table(['Consumer group', 'Topic', 'Records behind'], (s.lag || []).map((row) =>
    h('tr', { 'data-group': row.group, 'data-topic': row.topic },
      h('td', {}, row.group), h('td', {}, h('code', {}, row.topic)), h('td', { class: 'num' }, String(row.records)))),
  'No consumer group has committed offsets yet.');
  mount(view,
    h('p', { id: 'system-status' }, 'The system is ',
      h('strong', { class: s.status === 'ok' ? 'ok' : 'error' }, s.status === 'ok' ? 'ready' : 'degraded'),
      h('span', { class: 'muted' }, ` · as of ${time(s.at)}`)),
    h('h2', {}, 'Services'), services,
    h('h2', {}, 'Orders'),
    h('ul', { class: 'counts', id: 'orders' },
      h('li', {}, 'started ', h('strong', { id: 'orders-started' }, String(orders.started ?? 0))),
      h('li', {}, 'ended ', h('strong', { id: 'orders-ended' }, String(orders.ended ?? 0))),
      h('li', { id: 'started-rate' }, 'started per second ', h('strong', { id: 'orders-started-rate' },
        rate(orders.startedPerSecond))),
      h('li', { id: 'ended-rate' }, 'ended per second ', h('strong', { id: 'orders-ended-rate' },
        rate(orders.endedPerSecond)))),
    h('h3', {}, 'In flight'),
    figures('in-flight', inFlight, 'No order in flight.'),
    h('h2', {}, 'Consumer lag'), lag,
    ...restoring(s.restores || []),
    h('h2', {}, 'Incidents'),
    figures('incidents', Object.entries(s.incidents || {}), 'No incidents.'),
    h('p', {}, h('a', { href: '/incidents', id: 'system-incidents-link' }, 'Retry or dismiss incidents')),
    h('h2', {}, 'Failed node executions'),
    figures('node-failures', Object.entries(s.nodeFailures || {}).filter(([, n]) => n > 0), 'No node has failed.'),
    h('h2', {}, 'Webhook deliveries'),
    figures('webhook-deliveries', Object.entries(s.webhookDeliveries || {}), 'No deliveries yet.'));
}

export function systemPage(main) {
  mount(main, h('h1', {}, 'System'));
  if (!can('operator')) {
    main.append(h('p', { class: 'empty panel' }, 'The System page needs the operator role.'));
    return null;
  }
  // no aria-live: the whole view is redrawn every 5 seconds, which a screen reader would read out each time
  const view = h('div', { id: 'system' }, h('p', { class: 'muted' }, 'Loading…'));
  main.append(h('p', { class: 'muted' },
    'Readiness and figures from the services\u2019 meters; rates over the last minute.'), view);
  let seq = 0;
  async function load() {
    const mine = ++seq;
    try {
      const s = await api('/api/v1/system');
      if (mine === seq) render(view, s);
    } catch (e) {
      if (mine === seq) mount(view, errorBox(e));
    }
  }
  load();
  let timer;
  const schedule = () => { timer = setTimeout(() => { if (!document.hidden) load(); schedule(); }, REFRESH_MS); };
  schedule();
  return () => { clearTimeout(timer); seq++; };
}
