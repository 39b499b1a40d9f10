// The start form: a published flow, its order lines, currency and customer, sent to POST /api/v1/orders.
import { h, mount, api, can, errorBox } from './lib.js';

/**
 * The start request's JSON Schema as the API validates with it: the OpenAPI document publishes the very schema file
 * the gateway checks bodies against (components.schemas.StartOrderRequest). Loaded once per page load.
 */
let schemaPromise = null;
export function startSchema() {
  schemaPromise ||= api('/api/v1/openapi.json').then((doc) => ({ doc, root: doc.components.schemas.StartOrderRequest }))
    .catch((e) => { schemaPromise = null; throw e; });
  return schemaPromise;
}

/**
 * The issues of a value against a JSON Schema, as { path (a JSON Pointer), message }. It knows the keywords the API's
 * request schemas use (type, enum, required, properties, additionalProperties, items, minLength, maxLength, minimum,
 * maximum, $ref to a component); the API stays the one that decides, with the same schema.
 */
export function check(schema, value, doc, path = '') {
  if (!schema) return [];
  if (schema.$ref) return check(doc?.components?.schemas?.[schema.$ref.split('/').pop()], value, doc, path);
  const issues = [];
  const types = [].concat(schema.type || []);
  const typeOf = (v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : Number.isInteger(v) ? 'integer'
    : typeof v);
  const matches = (type) => typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer');
  if (types.length && !types.some(matches)) {
    issues.push({ path, message: types.includes('integer') ? 'must be a whole number'
      : types.includes('number') ? 'must be a number' : `must be ${types.join(' or ')}` });
    return issues;
  }
  if (schema.enum && !schema.enum.includes(value)) {
    issues.push({ path, message: `must be one of ${schema.enum.join(', ')}` });
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      issues.push({ path, message: schema.minLength === 1 ? 'must not be empty'
        : `must be at least ${schema.minLength} characters` });
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      issues.push({ path, message: `must be at most ${schema.maxLength} characters` });
    }
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      issues.push({ path, message: `must be at least ${schema.minimum}` });
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      issues.push({ path, message: `must be at most ${schema.maximum}` });
    }
  }
  if (typeOf(value) === 'object') {
    for (const name of schema.required || []) {
      if (!(name in value)) issues.push({ path: `${path}/${name}`, message: 'is required' });
    }
    for (const [name, v] of Object.entries(value)) {
      const sub = schema.properties?.[name];
      if (sub) issues.push(...check(sub, v, doc, `${path}/${name}`));
      else if (schema.additionalProperties === false) {
        issues.push({ path: `${path}/${name}`, message: 'is not allowed' });
      }
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => issues.push(...check(schema.items, item, doc, `${path}/${i}`)));
  }
  return issues;
}

/** A key for Idempotency-Key: random hex (crypto.getRandomValues works on plain http too, randomUUID does not). */
function randomKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A labelled input with the place for its error below it (outside the label, so not part of its name). */
function field(label, input, error) {
  return h('div', { class: 'field' }, h('label', {}, label, input), error);
}

/** Goes to a page of the dashboard without a reload (the shell renders on popstate). */
function go(path) {
  history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/**
 * The start form at /orders/new. Each field is checked against the API's schema as it is left (typed in or not), in
 * the API's words (an empty SKU: "must not be empty"); Start sends the order,
 * and the API's verdict decides: a 4xx shows its issues next to their fields (by the issues' JSON Pointers) with
 * everything typed kept, a 201 opens the new order. A repeat of the same body reuses its Idempotency-Key, so a retry
 * after a lost answer does not start a second order.
 */
export function startPage(main) {
  mount(main, h('p', {}, h('a', { href: '/orders' }, '← Orders')), h('h1', {}, 'Start an order'));
  if (!can('operator')) {
    main.append(h('p', { class: 'panel', id: 'start-not-allowed' }, 'Starting an order needs the operator role.'));
    return null;
  }
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading the flows…'));
  main.append(body);
  let gone = false;
  Promise.all([api('/api/v1/flows'), startSchema()]).then(([{ flows }, schema]) => {
    if (!gone) form(body, flows.filter((f) => f.publishedVersion != null), schema);
  }).catch((e) => { if (!gone) mount(body, errorBox(e)); });
  return () => { gone = true; };
}

function form(container, flows, { doc, root }) {
  const inputSchema = root.properties.input;
  const wanted = new URLSearchParams(location.search).get('flow');
  const fields = new Map(); // JSON Pointer → { input, error }
  const lines = [{ sku: '', qty: '1', unitPrice: '' }];
  let key = null;
  let keyedBody = null;

  function control(pointer, id, input) {
    const error = h('span', { class: 'field-error', id: `${id}-error` });
    input.id = id;
    input.setAttribute('aria-describedby', `${id}-error`);
    fields.set(pointer, { input, error });
    return error;
  }
  function setError(pointer, message) {
    const f = fields.get(pointer);
    if (!f) return false;
    f.error.textContent = message || '';
    if (message) f.input.setAttribute('aria-invalid', 'true');
    else f.input.removeAttribute('aria-invalid');
    return true;
  }

  const flow = h('select', { name: 'flow', required: true },
    flows.map((f) => h('option', { value: f.id, selected: f.id === wanted },
      `${f.name || f.id} (v${f.publishedVersion})`)));
  const customer = h('input', { name: 'customer', type: 'text', autocomplete: 'off', placeholder: 'e.g. cus_1042' });
  const currency = h('select', { name: 'currency' }, (inputSchema.properties.currency.enum || ['USD']).map((c) =>
    h('option', { value: c, selected: c === inputSchema.properties.currency.default }, c)));
  const shipTo = h('input', { name: 'shipTo', type: 'text', autocomplete: 'shipping street-address' });
  const linesBox = h('div', { id: 'start-lines' });
  const status = h('div', { id: 'start-status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', id: 'start-submit' }, 'Start order');

  const flowError = control('/flowId', 'start-flow', flow);
  const customerError = control('/input/customerId', 'start-customer', customer);
  const currencyError = control('/input/currency', 'start-currency', currency);
  const shipToError = control('/input/meta', 'start-ship-to', shipTo);

  function drawLines() {
    for (const pointer of [...fields.keys()]) if (pointer.startsWith('/input/lines/')) fields.delete(pointer);
    mount(linesBox, lines.map((line, i) => {
      const input = (name, attrs) => {
        const el = h('input', { name: `${name}-${i}`, value: line[name], ...attrs });
        el.addEventListener('input', () => { line[name] = el.value; clearIfValid(`/input/lines/${i}/${name}`); });
        // blur, not change: a field left empty without typing fires no change but is still wrong
        el.addEventListener('blur', () => hint(`/input/lines/${i}/${name}`));
        return [el, control(`/input/lines/${i}/${name}`, `start-line-${i}-${name}`, el)];
      };
      const [sku, skuError] = input('sku', { type: 'text', autocomplete: 'off', class: 'sku' });
      const [qty, qtyError] = input('qty', { type: 'number', inputmode: 'numeric', class: 'qty' });
      const [price, priceError] = input('unitPrice', { type: 'number', inputmode: 'decimal', step: 'any',
        class: 'price', placeholder: 'catalogue' });
      return h('fieldset', { class: 'line', 'data-line': i }, h('legend', {}, `Line ${i + 1}`),
        h('div', { class: 'row' }, field('SKU', sku, skuError), field('Quantity', qty, qtyError),
          field('Unit price (empty: the catalogue\'s)', price, priceError),
          lines.length > 1 ? h('button', {
            type: 'button', class: 'secondary remove-line', 'aria-label': `Remove line ${i + 1}`,
            onclick: () => { lines.splice(i, 1); drawLines(); linesBox.querySelector('input')?.focus(); },
          }, 'Remove') : null));
    }));
  }

  /** The request body from what is typed; empty optional fields are left out, numbers sent as numbers. */
  function request() {
    const number = (text) => (text.trim() === '' ? undefined : Number(text));
    const selected = flows.find((f) => f.id === flow.value);
    const input = { type: selected?.orderType, currency: currency.value };
    if (customer.value.trim()) input.customerId = customer.value.trim();
    input.lines = lines.map((l) => {
      const line = { sku: l.sku.trim() };
      const qty = number(l.qty), price = number(l.unitPrice);
      if (qty !== undefined) line.qty = qty;
      if (price !== undefined) line.unitPrice = price;
      return line;
    });
    if (shipTo.value.trim()) input.meta = { shipTo: shipTo.value.trim() };
    return { flowId: flow.value, input };
  }

  /** Checks one field against the schema as it is left. */
  function hint(pointer) {
    const issue = check(root, request(), doc).find((i) => i.path === pointer);
    setError(pointer, issue ? issue.message : '');
  }
  /** While typing, an error goes as soon as the field is right; a new one waits until the field is left. */
  function clearIfValid(pointer) {
    if (fields.get(pointer)?.error.textContent && !check(root, request(), doc).some((i) => i.path === pointer)) {
      setError(pointer, '');
    }
  }
  customer.addEventListener('blur', () => hint('/input/customerId'));
  customer.addEventListener('input', () => clearIfValid('/input/customerId'));

  async function send(e) {
    e.preventDefault();
    fields.forEach((_, pointer) => setError(pointer, ''));
    mount(status);
    const payload = request();
    const text = JSON.stringify(payload);
    if (text !== keyedBody) { key = randomKey(); keyedBody = text; }
    submit.disabled = true;
    try {
      const started = await api('/api/v1/orders',
        { method: 'POST', body: payload, headers: { 'idempotency-key': key } });
      go(`/orders/${encodeURIComponent(started.orderId)}`);
    } catch (err) {
      if (err.status >= 400 && err.status < 500) keyedBody = null; // refused: nothing was started under this key
      const unplaced = [];
      for (const issue of err.body?.issues || []) {
        const property = /'([^']+)'/.exec(issue.message || '')?.[1];
        const placed = (property && setError(`${issue.path}/${property}`, issue.message))
          || setError(issue.path, issue.message);
        if (!placed) unplaced.push(issue);
      }
      mount(status, h('div', { class: 'error', role: 'alert', id: 'start-error' },
        h('p', {}, `The order was not started: ${err.message}`),
        unplaced.length ? h('ul', {}, unplaced.map((i) => h('li', {}, `${i.path || 'body'}: ${i.message}`))) : null));
      [...fields.values()].find((f) => f.input.getAttribute('aria-invalid') === 'true')?.input.focus();
    } finally {
      submit.disabled = false;
    }
  }

  if (!flows.length) {
    mount(container, h('p', { class: 'empty panel' }, 'No flow is published yet: publish one with the flow-runner.'));
    return;
  }
  drawLines();
  mount(container, h('form', { class: 'panel start-form', id: 'start-form', novalidate: true, onsubmit: send },
    h('div', { class: 'row' }, field('Flow', flow, flowError), field('Customer', customer, customerError),
      field('Currency', currency, currencyError)),
    h('fieldset', { class: 'lines' }, h('legend', {}, 'Lines'), linesBox,
      h('button', {
        type: 'button', class: 'secondary', id: 'add-line',
        onclick: () => {
          lines.push({ sku: '', qty: '1', unitPrice: '' });
          drawLines();
          document.getElementById(`start-line-${lines.length - 1}-sku`)?.focus();
        },
      }, 'Add a line')),
    field('Ship to', shipTo, shipToError),
    h('div', { class: 'row' }, submit), status));
}
