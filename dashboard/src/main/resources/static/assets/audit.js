// The audit log: every change to the team (people added, roles changed, people disabled or enabled, passwords reset,
// tokens created or revoked) and to the service clock of a test system (advanced, pinned, reset) with who made it,
// newest first, a page of 50 at a time with the API's cursor.
import { h, mount, api, can, timeEl, table, errorBox } from './lib.js';

const PAGE_SIZE = 50;

const ACTIONS = {
  'person.added': 'Person added',
  'person.role_changed': 'Role changed',
  'person.disabled': 'Person disabled',
  'person.enabled': 'Person enabled',
  'person.password_reset': 'Password reset',
  'token.created': 'Token created',
  'token.revoked': 'Token revoked',
  'clock.advanced': 'Clock advanced',
  'clock.pinned': 'Clock set',
  'clock.reset': 'Clock reset',
};

export function auditPage(main) {
  if (!can('operator')) {
    mount(main, h('h1', {}, 'Audit'), h('p', { class: 'muted', id: 'audit-needs-operator' },
      'The audit log needs the operator role.'));
    return null;
  }
  const list = h('div', { id: 'audit-list' }, h('p', { class: 'muted' }, 'Loading the audit log…'));
  const pager = h('nav', { class: 'row pager', id: 'audit-pager', 'aria-label': 'Pages of the audit log' });
  let cursors = [null]; // the cursor of each page seen so far: cursors[i] opens page i
  let pageIndex = 0;
  let seq = 0;
  async function load() {
    const mine = ++seq;
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (cursors[pageIndex]) query.set('cursor', cursors[pageIndex]);
    try {
      const page = await api(`/api/v1/team/audit?${query}`);
      if (mine !== seq) return;
      cursors = cursors.slice(0, pageIndex + 1);
      if (page.next) cursors.push(page.next);
      const first = pageIndex * PAGE_SIZE;
      mount(pager,
        h('button', { type: 'button', class: 'secondary', id: 'audit-prev', disabled: pageIndex === 0,
          onclick: () => { pageIndex -= 1; load(); } }, '← Newer'),
        h('span', { id: 'audit-range', role: 'status' }, page.entries.length
          ? `${first + 1}–${first + page.entries.length}` : 'No entries'),
        h('button', { type: 'button', class: 'secondary', id: 'audit-next', disabled: !page.next,
          onclick: () => { pageIndex += 1; load(); } }, 'Older →'));
      mount(list, table(['When', 'Who', 'What', 'Whom', 'Change'], page.entries.map((e) => h('tr', {
        'data-audit': e.id, 'data-action': e.action,
      },
      h('td', { 'data-label': 'When' }, timeEl(e.at)),
      h('td', { 'data-label': 'Who' }, e.actor === 'password' ? 'Shared password'
        : e.actor === 'open' ? 'Open deployment' : e.actor),
      h('td', { 'data-label': 'What' }, ACTIONS[e.action] || e.action),
      h('td', { 'data-label': 'Whom' }, e.target),
      h('td', { 'data-label': 'Change' }, h('span', { class: 'wrap' }, e.summary)))),
      'Nothing has changed on the team yet.'));
    } catch (e) {
      if (mine === seq) mount(list, errorBox(e));
    }
  }
  mount(main, h('h1', {}, 'Audit'),
    h('p', { class: 'muted' }, 'Every change to the team, its API tokens and the service clock, and who made it. Newest first.'),
    pager, list);
  load();
  return null;
}
