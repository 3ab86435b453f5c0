// The operator console: a thin page over the gateway's admin API. The key lives in this tab's session storage (never
// in a URL, a cookie or local storage) and goes only to this origin's /admin routes; all text from the API is put in
// the page as text, never as markup.
import uPlot from '/console/uPlot.esm.js';

const keySlot = 'switchyard.adminKey';
const $ = (sel) => document.querySelector(sel);
const palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];
let chart;

class SignedOut extends Error {}

async function api(method, path, body) {
  const key = sessionStorage.getItem(keySlot);
  if (!key) throw new SignedOut('Sign in first');
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
    cache: 'no-store',
  });
  const json = await res.json().catch(() => ({}));
  if (res.status === 401 || res.status === 403) throw new SignedOut(json.error?.message ?? 'The admin key was refused');
  if (!res.ok) throw new Error(json.error?.message ?? `${method} ${path}: HTTP ${res.status}`);
  return json;
}

/** Runs an action, showing its failure; a refused key goes back to the sign-in form. */
async function attempt(what, fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SignedOut) return signOut(err.message);
    notice(`${what}: ${err.message}`, true);
  }
}

function notice(text, error = false) {
  const n = $('#notice');
  n.textContent = text;
  n.className = error ? 'error' : text ? 'ok' : '';
}

function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (cls) td.className = cls;
  return td;
}

function fill(tbody, rows) {
  tbody.replaceChildren(...rows);
}

const num = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'));
/** A task's money: what it holds while open, what it cost once settled, nothing once refunded. */
const money = (q) => (q.state === 'settled' ? num(q.charged) : q.state === 'refunded' ? 'refunded' : `${num(q.reserved)} held`);
const when = (s) => (s ? new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ') : '–');

// ---- Sign in and out ----------------------------------------------------------------------------------------------

function showApp(signedIn) {
  $('#sign-in').hidden = signedIn;
  $('#app').hidden = !signedIn;
  $('#session-actions').hidden = !signedIn;
}

async function signIn(event) {
  event.preventDefault();
  const key = $('#admin-key').value.trim();
  sessionStorage.setItem(keySlot, key);
  $('#admin-key').value = '';
  try {
    await api('GET', '/admin/tokens?limit=1');
  } catch (err) {
    sessionStorage.removeItem(keySlot);
    $('#sign-in-error').textContent = err instanceof SignedOut ? 'That key was refused.' : err.message;
    return;
  }
  $('#sign-in-error').textContent = '';
  showApp(true);
  await refreshAll();
}

function signOut(message = '') {
  sessionStorage.removeItem(keySlot);
  chart?.destroy();
  chart = undefined;
  showApp(false);
  $('#sign-in-error').textContent = message;
  notice('');
}

async function refreshAll() {
  await Promise.all([loadTokens(), loadUsage(), loadRequests(), loadTasks(), loadChannels()]);
}

// ---- Tokens -------------------------------------------------------------------------------------------------------

async function loadTokens() {
  const page = await attempt('Tokens', () => api('GET', '/admin/tokens?limit=1000'));
  if (!page) return;
  fill($('#tokens-table tbody'), page.data.map(tokenRow));
}

function tokenRow(t) {
  const tr = document.createElement('tr');
  tr.dataset.id = t.id;
  const expired = t.expires_at !== null && t.expires_at * 1000 < Date.now();
  const status = t.revoked ? 'revoked' : expired ? 'expired' : 'active';
  tr.append(cell(t.name ?? '–'), cell(t.id, 'mono'), cell(t.group), cell(t.user || '–'), cell(num(t.balance), 'num balance'),
    cell(t.models ? t.models.join(', ') : 'all'), cell(when(t.expires_at)), cell(status, `status ${status}`));
  const actions = document.createElement('td');
  if (!t.revoked) {
    const amount = Object.assign(document.createElement('input'), { type: 'number', min: '1', step: '1', placeholder: 'amount', size: 8 });
    amount.setAttribute('aria-label', `Top-up amount for ${t.name ?? t.id}`);
    const topup = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Top up' });
    topup.addEventListener('click', () => topUp(t, amount.value));
    const revoke = Object.assign(document.createElement('button'), { type: 'button', textContent: 'Revoke', className: 'danger' });
    revoke.addEventListener('click', () => revokeToken(t));
    actions.append(amount, topup, revoke);
  }
  tr.append(actions);
  return tr;
}

async function createToken(event) {
  event.preventDefault();
  const f = new FormData(event.target);
  const body = { group: f.get('group').trim(), quota: Number(f.get('quota')) };
  for (const k of ['user', 'name']) if (f.get(k).trim()) body[k] = f.get(k).trim();
  const models = f.get('models').split(',').map((m) => m.trim()).filter(Boolean);
  if (models.length) body.models = models;
  if (f.get('expires_at')) body.expires_at = Math.floor(Date.parse(`${f.get('expires_at')}T23:59:59Z`) / 1000);
  const made = await attempt('Create token', () => api('POST', '/admin/tokens', body));
  if (!made) return;
  $('#new-key-value').textContent = made.key;
  $('#new-key').hidden = false;
  notice(`Token ${made.id} created in group ${made.group}.`);
  await loadTokens();
}

async function topUp(t, raw) {
  const amount = Number(raw);
  if (!Number.isSafeInteger(amount) || amount < 1) return notice('Top up: enter a whole number of units, 1 or more', true);
  const done = await attempt('Top up', () => api('POST', `/admin/tokens/${encodeURIComponent(t.id)}/topup`, { amount }));
  if (!done) return;
  notice(`Topped up ${t.name ?? t.id} by ${num(amount)}: balance ${num(done.balance)}.`);
  await loadTokens();
}

async function revokeToken(t) {
  if (!confirm(`Revoke ${t.name ?? t.id}? Its key stops working on every instance.`)) return;
  const done = await attempt('Revoke', () => api('DELETE', `/admin/tokens/${encodeURIComponent(t.id)}`));
  if (!done) return;
  notice(`Revoked ${t.name ?? t.id}.`);
  await loadTokens();
}

// ---- Usage --------------------------------------------------------------------------------------------------------

function usageQuery(extra) {
  const f = new FormData($('#usage-form'));
  const days = Number(f.get('days'));
  const from = Math.floor(Date.UTC(...utcDay(Date.now() - (days - 1) * 86_400_000)) / 1000);
  const q = new URLSearchParams({ from: String(from), ...extra });
  if (f.get('token').trim()) q.set('token', f.get('token').trim());
  return { q, days, from, measure: f.get('measure') };
}

const utcDay = (ms) => { const d = new Date(ms); return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()]; };

async function loadUsage() {
  const { q, days, from, measure } = usageQuery({ group_by: 'model,day' });
  const [byDay, byModel] = await Promise.all([
    attempt('Usage', () => api('GET', `/admin/usage?${q}`)),
    attempt('Usage', () => api('GET', `/admin/usage?${usageQuery({ group_by: 'model' }).q}`)),
  ]) ?? [];
  if (!byDay || !byModel) return;
  drawChart(byDay.data, days, from, measure);
  fill($('#usage-table tbody'), byModel.data.map((r) => usageRow(r.key, r)));
  fill($('#usage-table tfoot'), [usageRow('Total', byModel.total)]);
}

function usageRow(label, r) {
  const tr = document.createElement('tr');
  tr.dataset.model = label;
  tr.append(cell(label), cell(num(r.requests), 'num requests'), cell(num(r.prompt_tokens), 'num'), cell(num(r.completion_tokens), 'num'),
    cell(num(r.cached_tokens), 'num cached'), cell(num(r.cache_write_tokens), 'num'), cell(num(r.reasoning_tokens), 'num'),
    cell(num(r.units), 'num'), cell(num(r.charged), 'num charged'), cell(`$${r.charged_usd.toFixed(4)}`, 'num'), cell(num(r.uncharged), 'num'));
  return tr;
}

/** One line per model over every day of the range (days without use are 0). */
function drawChart(rows, days, from, measure) {
  const xs = Array.from({ length: days }, (_, i) => from + i * 86_400);
  const index = new Map(xs.map((x, i) => [new Date(x * 1000).toISOString().slice(0, 10), i]));
  const models = [...new Set(rows.map((r) => r.key))].sort();
  const series = models.map(() => new Array(days).fill(0));
  let total = 0;
  for (const r of rows) {
    const i = index.get(r.day);
    if (i === undefined) continue;
    series[models.indexOf(r.key)][i] += r[measure];
    total += r[measure];
  }
  const box = $('#usage-chart');
  box.dataset.models = models.join(',');
  box.dataset.total = String(total);
  $('#usage-empty').hidden = models.length > 0;
  chart?.destroy();
  const opts = {
    width: Math.max(320, box.clientWidth || 900), height: 260,
    scales: { x: { time: true } },
    axes: [{}, { size: 70, values: (_, ticks) => ticks.map((t) => num(t)) }],
    series: [{ label: 'day', value: (_, v) => (v === null ? '–' : new Date(v * 1000).toISOString().slice(0, 10)) },
      ...models.map((m, i) => ({ label: m, stroke: palette[i % palette.length], width: 2, points: { show: true }, value: (_, v) => num(v) }))],
  };
  chart = new uPlot(opts, [xs, ...series], box);
}

// ---- Request log ----------------------------------------------------------------------------------------------------

let requestsCursor = null;

function requestsQuery() {
  const f = new FormData($('#requests-form'));
  const q = new URLSearchParams({ from: String(Math.floor(Date.now() / 1000) - Number(f.get('hours')) * 3600) });
  for (const name of ['id', 'token', 'user', 'model', 'channel', 'route', 'status', 'error_code']) {
    const v = String(f.get(name) ?? '').trim();
    if (v) q.set(name, v);
  }
  return q;
}

async function loadRequests(more = false) {
  const q = requestsQuery();
  q.set('limit', '50');
  if (more && requestsCursor) q.set('cursor', requestsCursor);
  const page = await attempt('Request log', () => api('GET', `/admin/requests?${q}`));
  if (!page) return;
  const rows = page.data.map(requestRow);
  if (more) $('#requests-table tbody').append(...rows); else fill($('#requests-table tbody'), rows);
  requestsCursor = page.next_cursor;
  $('#requests-more').hidden = !page.has_more;
}

function requestRow(r) {
  const tr = document.createElement('tr');
  const u = r.usage ?? {};
  const id = cell(r.id, 'mono link');
  id.tabIndex = 0;
  id.addEventListener('click', () => showRequest(r.id));
  tr.append(cell(new Date(r.at).toISOString().replace('T', ' ').slice(0, 19)), id, cell(r.token ?? '–', 'mono'), cell(r.model ?? '–'),
    cell(r.channel ?? '–'), cell(r.status ?? r.outcome ?? '–', 'num'), cell(r.error_code ?? ''), cell(num(u.prompt_tokens ?? 0), 'num'),
    cell(num(u.cached_tokens ?? 0), 'num'), cell(num(u.completion_tokens ?? 0), 'num'), cell(num(r.charged ?? 0), 'num'),
    cell(r.latency_ms ?? '–', 'num'), cell(r.first_byte_ms ?? '–', 'num'));
  return tr;
}

/** One request's whole record(s), as JSON text (never markup). */
async function showRequest(id) {
  const one = await attempt('Request', () => api('GET', `/admin/requests/${encodeURIComponent(id)}`));
  if (!one) return;
  $('#request-detail').textContent = JSON.stringify(one.data, null, 2);
  $('#request-detail').hidden = false;
}

/** The search's records as a CSV file, fetched with the key (a link could not carry it). */
async function exportRequests() {
  const q = requestsQuery();
  q.set('format', 'csv');
  const res = await fetch(`/admin/requests/export?${q}`, { headers: { authorization: `Bearer ${sessionStorage.getItem(keySlot)}` } });
  if (!res.ok) { notice(`Export: ${res.status}`, true); return; }
  const a = document.createElement('a');
  a.href = URL.createObjectURL(await res.blob());
  a.download = 'requests.csv';
  a.click();
  URL.revokeObjectURL(a.href);
}

// ---- Tasks and channels -------------------------------------------------------------------------------------------

async function loadTasks() {
  const f = new FormData($('#tasks-form'));
  const q = new URLSearchParams({ limit: '50' });
  if (f.get('status')) q.set('status', f.get('status'));
  if (f.get('token').trim()) q.set('token', f.get('token').trim());
  const page = await attempt('Tasks', () => api('GET', `/admin/tasks?${q}`));
  if (!page) return;
  fill($('#tasks-table tbody'), page.data.map((t) => {
    const tr = document.createElement('tr');
    tr.append(cell(t.id, 'mono'), cell(t.model), cell(t.status, `status ${t.status}`), cell(t.progress ?? '–', 'num'),
      cell(`${t.owner.user || '–'} / ${t.owner.token}`, 'mono'), cell(t.channel ?? '–'), cell(money(t.quota), 'num'),
      cell(when(t.created_at)), cell(t.error ? `${t.error.code ?? ''} ${t.error.message ?? ''}`.trim() : ''));
    return tr;
  }));
}

async function loadChannels() {
  const list = await attempt('Channels', () => api('GET', '/admin/channels'));
  if (!list) return;
  $('#channels-window').textContent = list.data.length ? `Attempts over the last ${list.data[0].window_s} s, as instance ${list.instance} sees them.` : '';
  fill($('#channels-table tbody'), list.data.map((c) => {
    const tr = document.createElement('tr');
    tr.dataset.id = c.id;
    const rate = c.error_rate === null ? '–' : `${(c.error_rate * 100).toFixed(1)} %`;
    tr.append(cell(c.id, 'mono'), cell(c.enabled ? 'yes' : 'no'), cell(c.throttled_until ? `${c.breaker} (throttled)` : c.breaker, `status ${c.breaker}`),
      cell(num(c.attempts), 'num'), cell(rate, 'num'), cell(num(c.latency_ms.p50), 'num'), cell(num(c.latency_ms.p90), 'num'),
      cell(num(c.latency_ms.p99), 'num'), cell(num(c.in_flight), 'num'), cell(c.groups.join(', ')));
    return tr;
  }));
}

async function reloadConfig() {
  const r = await attempt('Reload', () => api('POST', '/admin/reload'));
  if (!r) return;
  notice(`Config reloaded on instance ${r.instance}: ${r.config}.`);
  await loadChannels();
}

// ---- Wiring -------------------------------------------------------------------------------------------------------

$('#sign-in-form').addEventListener('submit', signIn);
$('#sign-out').addEventListener('click', () => signOut());
$('#reload-config').addEventListener('click', reloadConfig);
$('#channels-refresh').addEventListener('click', loadChannels);
$('#create-token').addEventListener('submit', createToken);
$('#usage-form').addEventListener('submit', (e) => { e.preventDefault(); loadUsage(); });
$('#tasks-form').addEventListener('submit', (e) => { e.preventDefault(); loadTasks(); });
$('#requests-form').addEventListener('submit', (e) => { e.preventDefault(); loadRequests(); });
$('#requests-more').addEventListener('click', () => loadRequests(true));
$('#requests-csv').addEventListener('click', exportRequests);
$('#new-key-hide').addEventListener('click', () => { $('#new-key').hidden = true; $('#new-key-value').textContent = ''; });
$('#new-key-copy').addEventListener('click', () => navigator.clipboard?.writeText($('#new-key-value').textContent));

if (sessionStorage.getItem(keySlot)) {
  showApp(true);
  refreshAll();
}
