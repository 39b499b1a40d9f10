// The dashboard's shell: who is signed in, the navigation, and the client-side routes.
import { h, mount, api, session, errorBox, field, can } from './lib.js';
import { ordersPage, approvalsPage, backOfficePage, webhooksPage, teamPage, flowsPage } from './pages.js';
import { orderPage } from './order.js';
import { systemPage } from './system.js';
import { startPage } from './start.js';
import { auditPage } from './audit.js';
import { incidentsPage } from './incidents.js';
import { batchesPage } from './batches.js';

const NAV = [
  ['/orders', 'Orders'], ['/approvals', 'Approvals'], ['/back-office', 'Back office'],
  // a viewer decides nothing and changes nothing there: the team, audit and webhook pages are for approvers up
  // (the audit log for operators only, as its API)
  ['/webhooks', 'Webhooks', 'approver'], ['/team', 'Team', 'approver'], ['/audit', 'Audit', 'operator'],
  ['/flows', 'Flows'],
  ['/system', 'System', 'operator'],
  ['/incidents', 'Incidents', 'operator'],
  ['/batches', 'Batches', 'operator'],
];

const ROUTES = [
  [/^\/(orders)?$/, () => ordersPage],
  [/^\/orders\/new$/, () => startPage],
  [/^\/orders\/([^/]+)$/, () => orderPage],
  [/^\/approvals$/, () => approvalsPage],
  [/^\/back-office$/, () => backOfficePage],
  [/^\/webhooks$/, () => webhooksPage],
  [/^\/team$/, () => teamPage],
  [/^\/audit$/, () => auditPage],
  [/^\/flows$/, () => flowsPage],
  [/^\/system$/, () => systemPage],
  [/^\/incidents$/, () => incidentsPage],
  [/^\/batches$/, () => batchesPage],
  [/^\/batches\/([^/]+)$/, () => batchesPage],
];

const main = document.getElementById('main');
let cleanup = null;

/** Goes to a page of the dashboard without reloading. */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

async function whoAmI() {
  try {
    session.me = await api('/api/v1/auth/me');
  } catch (e) {
    session.me = null;
    if (e.status !== 401) throw e;
  }
  return session.me;
}

async function render() {
  if (cleanup) { try { cleanup(); } catch { /* the old page is gone anyway */ } cleanup = null; }
  const path = location.pathname;
  let me;
  try {
    me = session.me || await whoAmI();
  } catch (e) {
    mount(main, h('h1', {}, 'Dashboard'), errorBox(e));
    return;
  }
  if (!me) {
    shell();
    signInPage();
    return;
  }
  if (path === '/sign-in') { navigate('/orders', { replace: true }); return; }
  shell();
  const route = ROUTES.find(([pattern]) => pattern.test(path));
  if (!route) {
    mount(main, h('h1', {}, 'Page not found'), h('p', {}, h('a', { href: '/orders' }, 'Go to the orders')));
    return;
  }
  const params = path.match(route[0]).slice(1).map((p) => p && decodeURIComponent(p));
  mount(main);
  cleanup = route[1]()(main, ...params) || null;
  main.focus({ preventScroll: true });
}

function shell() {
  const nav = document.getElementById('nav');
  const who = document.getElementById('who');
  if (!session.me) {
    nav.hidden = true;
    mount(who);
    return;
  }
  nav.hidden = false;
  const current = location.pathname === '/' ? '/orders' : location.pathname;
  mount(nav, h('ul', {}, NAV.filter(([, , role]) => !role || can(role)).map(([href, label]) => h('li', {},
    h('a', { href, 'aria-current': current === href || (href !== '/' && current.startsWith(`${href}/`)) ? 'page' : null }, label)))));
  const me = session.me;
  const name = me.kind === 'person' ? (me.name || me.email) : me.kind === 'token' ? me.identity
    : me.kind === 'password' ? 'Shared password' : 'Open deployment';
  mount(who,
    h('span', { id: 'who-am-i' }, name, ' · ', h('strong', { id: 'my-role' }, me.role)),
    me.kind === 'open' ? null : h('button', { type: 'button', class: 'secondary', id: 'sign-out', onclick: signOut }, 'Sign out'));
}

async function signOut() {
  try { await api('/api/v1/auth/sign-out', { method: 'POST' }); } catch { /* signed out anyway */ }
  session.me = null;
  navigate('/sign-in');
}

function signInPage() {
  if (location.pathname !== '/sign-in') history.replaceState({ after: location.pathname }, '', '/sign-in');
  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username' });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const status = h('div', { 'aria-live': 'assertive' });
  const submit = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
  const form = h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      submit.disabled = true;
      mount(status);
      try {
        const body = { password: password.value };
        if (email.value.trim()) body.email = email.value.trim();
        session.me = await api('/api/v1/auth/sign-in', { method: 'POST', body });
        const after = history.state?.after;
        navigate(after && after !== '/sign-in' ? after : '/orders', { replace: true });
      } catch (err) {
        mount(status, errorBox(err.status === 401 ? new Error('Wrong email or password.') : err));
        submit.disabled = false;
        password.focus();
      }
    },
  },
  field('Email (leave empty for the shared password)', email),
  field('Password', password),
  submit, status);
  mount(main, h('section', { class: 'signin panel' }, h('h1', {}, 'Sign in'), form));
  (email.value ? password : email).focus();
}

// Links inside the app navigate without a reload.
document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target
    || a.hasAttribute('download')) return;
  // a skip link moves the focus to its target and leaves the page (and its route) as it is
  const target = a.getAttribute('href').startsWith('#') && document.getElementById(a.getAttribute('href').slice(1));
  if (target) {
    e.preventDefault();
    target.focus();
    target.scrollIntoView({ block: 'start' });
    return;
  }
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', render);
session.onSignedOut = () => {
  if (!session.me) return;
  session.me = null;
  render();
};
export { can };
render();
