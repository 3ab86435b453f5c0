// The operator's views, over the admin API with the key from this tab's session storage: tokens, teams and their
// budget bars, usage by model and day, the request log, tasks and channels.
import uPlot from '/console/uPlot.esm.js';
import { $, budgetBar, button, cell, fill, notice, num, request, tokenStatus, usageRow, when } from './common.js';
import { requestLog } from './request-log.js';

const palette = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777', '#4b5563', '#65a30d'];
export const keySlot = 'switchyard.adminKey';
let chart;
let attempt;

const api = (method, path, body) => request(method, path, body, { authorization: `Bearer ${sessionStorage.getItem(keySlot)}` });
const money = (q) => (q.state === 'settled' ? num(q.charged) : q.state === 'refunded' ? 'refunded' : `${num(q.reserved)} held`);
let log;

/** `run(what, fn)`: runs an action, showing its failure (a refused key signs out). */
export function wireOperator(run) {
  attempt = run;
  log = requestLog({
    get: (path) => api('GET', path), base: '/admin/requests', attempt,
    ids: { form: '#requests-form', table: '#requests-table', more: '#requests-more', detail: '#request-detail' },
    filters: ['id', 'token', 'user', 'model', 'channel', 'route', 'status', 'error_code'],
  });
  $('#reload-config').addEventListener('click', reloadConfig);
  $('#channels-refresh').addEventListener('click', loadChannels);
  $('#teams-refresh').addEventListener('click', loadTeams);
  $('#create-token').addEventListener('submit', createToken);
  $('#usage-form').addEventListener('submit', (e) => { e.preventDefault(); loadUsage(); });
  $('#tasks-form').addEventListener('submit', (e) => { e.preventDefault(); loadTasks(); });
  $('#requests-csv').addEventListener('click', exportRequests);
  $('#new-key-hide').addEventListener('click', () => { $('#new-key').hidden = true; $('#new-key-value').textContent = ''; });
  $('#new-key-copy').addEventListener('click', () => navigator.clipboard?.writeText($('#new-key-value').textContent));
}

/** Checks the key with a cheap call; throws SignedOut when it is refused. */
export const checkKey = () => api('GET', '/admin/tokens?limit=1');

export async function refreshOperator() {
  await Promise.all([loadTokens(), loadTeams(), loadUsage(), log.load(), loadTasks(), loadChannels()]);
}

export function stopOperator() {
  chart?.destroy();
  chart = undefined;
}

// ---- Tokens -------------------------------------------------------------------------------------------------------

async function loadTokens() {
  const page = await attempt('Tokens', () => api('GET', '/admin/tokens?limit=1000'));
  if (page) fill($('#tokens-table tbody'), page.data.map(tokenRow));
}

function tokenRow(t) {
  const tr = document.createElement('tr');
  tr.dataset.id = t.id;
  const status = tokenStatus(t);
  tr.append(cell(t.name ?? '–'), cell(t.id, 'mono'), cell(t.group), cell(t.user || '–', 'mono'), cell(num(t.balance), 'num balance'),
    cell(t.models ? t.models.join(', ') : 'all'), cell(when(t.expires_at)), cell(status, `status ${status}`));
  const actions = document.createElement('td');
  actions.className = 'actions';
  if (!t.revoked) {
    const amount = Object.assign(document.createElement('input'), { type: 'number', min: '1', step: '1', placeholder: 'amount', size: 8 });
    amount.setAttribute('aria-label', `Top-up amount for ${t.name ?? t.id}`);
    actions.append(amount, button('Top up', () => topUp(t, amount.value)), button('Revoke', () => revokeToken(t), 'danger'));
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
  if (!(await attempt('Revoke', () => api('DELETE', `/admin/tokens/${encodeURIComponent(t.id)}`)))) return;
  notice(`Revoked ${t.name ?? t.id}.`);
  await loadTokens();
}

// ---- Teams: each budget as a bar for the period -------------------------------------------------------------------

async function loadTeams() {
  const list = await attempt('Teams', () => api('GET', '/admin/teams'));
  if (!list) return;
  $('#teams-empty').hidden = list.data.length > 0;
  fill($('#teams-table tbody'), list.data.map((t) => {
    const tr = document.createElement('tr');
    tr.dataset.id = t.id;
    const bar = document.createElement('td');
    bar.className = 'bar';
    bar.append(budgetBar(t.current.used, t.current.budget, t.current.resets_at, `${t.name}'s budget for the ${t.period ?? 'month'}`));
    tr.append(cell(t.name), cell(t.period ?? '–'), bar, cell(t.member_cap === null ? '–' : num(t.member_cap), 'num'),
      cell(t.members.map((m) => m.name).join(', ') || '–'));
    return tr;
  }));
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
  ]);
  if (!byDay || !byModel) return;
  drawChart(byDay.data, days, from, measure);
  fill($('#usage-table tbody'), byModel.data.map((r) => usageRow(r.key, r)));
  fill($('#usage-table tfoot'), [usageRow('Total', byModel.total)]);
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

/** The search's records as a CSV file, fetched with the key (a link could not carry it). */
async function exportRequests() {
  const f = new FormData($('#requests-form'));
  const q = new URLSearchParams({ format: 'csv', from: String(Math.floor(Date.now() / 1000) - Number(f.get('hours')) * 3600) });
  for (const name of ['id', 'token', 'user', 'model', 'channel', 'route', 'status', 'error_code']) if (String(f.get(name) ?? '').trim()) q.set(name, String(f.get(name)).trim());
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
