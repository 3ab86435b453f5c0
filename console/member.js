// A signed-in user's own views: their wallet, their team's budget for the period, their tokens (create with caps and
// models of their group, rotate, revoke; a new key is shown once), their usage and their request log. The session is
// an HttpOnly cookie this script never sees; it sends the session's CSRF token on every call but GET.
import { $, budgetBar, button, cell, fill, notice, num, request, tokenStatus, usageRow, when } from './common.js';
import { requestLog } from './request-log.js';

let csrf = '';
let attempt;
let log;

const api = (method, path, body) => request(method, path, body, method === 'GET' ? {} : { 'x-csrf-token': csrf });

export function wireMember(run) {
  attempt = run;
  log = requestLog({
    get: (path) => api('GET', path), base: '/console/api/me/requests', attempt,
    ids: { form: '#my-requests-form', table: '#my-requests-table', more: '#my-requests-more', detail: '#my-request-detail' },
    filters: ['id', 'token', 'model', 'status', 'error_code'],
  });
  $('#my-create-token').addEventListener('submit', createToken);
  $('#my-usage-form').addEventListener('submit', (e) => { e.preventDefault(); loadUsage(); });
  $('#my-new-key-hide').addEventListener('click', () => { $('#my-new-key').hidden = true; $('#my-new-key-value').textContent = ''; });
  $('#my-new-key-copy').addEventListener('click', () => navigator.clipboard?.writeText($('#my-new-key-value').textContent));
}

/** POST /console/api/sign-in: throws SignedOut on a wrong name or password. */
export async function signInMember(name, password) {
  const s = await request('POST', '/console/api/sign-in', { name, password });
  csrf = s.csrf_token;
}

/** The user's page, when a session is live (a reload of the tab keeps the cookie); throws SignedOut otherwise. */
export async function refreshMember() {
  const me = await api('GET', '/console/api/me');
  csrf = me.csrf_token;
  showMe(me);
  await Promise.all([loadTokens(), loadUsage(), log.load()]);
}

export async function signOutMember() {
  if (csrf) await api('POST', '/console/api/sign-out').catch(() => undefined);
  csrf = '';
}

function showMe(me) {
  $('#me-name').textContent = me.name;
  $('#me-group').textContent = me.group;
  $('#me-balance').textContent = me.unlimited ? `${num(me.balance)} (unlimited)` : num(me.balance);
  const team = me.team;
  $('#me-team').hidden = !team;
  if (team) {
    $('#me-team-name').textContent = team.name;
    $('#me-team-budget').replaceChildren(budgetBar(team.current.used, team.current.budget, team.current.resets_at, `team ${team.name}'s budget for the ${team.period ?? 'month'}`));
    $('#me-member-cap').replaceChildren(budgetBar(team.member_used, team.member_cap, team.current.resets_at, `your cap in team ${team.name}`));
  }
  const models = $('#my-create-token select[name=models]');
  models.replaceChildren(...me.models.map((m) => Object.assign(document.createElement('option'), { value: m, textContent: m })));
}

// ---- Tokens -------------------------------------------------------------------------------------------------------

async function loadTokens() {
  const page = await attempt('Tokens', () => api('GET', '/console/api/me/tokens'));
  if (page) fill($('#my-tokens-table tbody'), page.data.map(tokenRow));
}

function tokenRow(t) {
  const tr = document.createElement('tr');
  tr.dataset.id = t.id;
  const status = tokenStatus(t);
  const cap = t.cap === null ? 'none' : `${num(t.cap_left)} left of ${num(t.cap)}`;
  const periodCap = t.period_cap === null ? 'none' : `${num(t.period_cap)} a ${t.cap_period}`;
  tr.append(cell(t.name ?? '–'), cell(t.id, 'mono'), cell(t.models ? t.models.join(', ') : 'all of the group\'s'), cell(cap, 'cap'),
    cell(periodCap), cell(when(t.expires_at)), cell(status, `status ${status}`));
  const actions = document.createElement('td');
  actions.className = 'actions';
  if (!t.revoked) actions.append(button('Rotate', () => rotate(t)), button('Revoke', () => revoke(t), 'danger'));
  tr.append(actions);
  return tr;
}

async function createToken(event) {
  event.preventDefault();
  const f = new FormData(event.target);
  const body = {};
  if (f.get('name').trim()) body.name = f.get('name').trim();
  if (f.get('cap') !== '') body.cap = Number(f.get('cap'));
  if (f.get('period_cap') !== '') Object.assign(body, { period_cap: Number(f.get('period_cap')), cap_period: f.get('cap_period') });
  const models = f.getAll('models');
  if (models.length) body.models = models;
  if (f.get('expires_at')) body.expires_at = Math.floor(Date.parse(`${f.get('expires_at')}T23:59:59Z`) / 1000);
  const made = await attempt('Create token', () => api('POST', '/console/api/me/tokens', body));
  if (!made) return;
  showKey(made.key);
  notice(`Token ${made.name ?? made.id} created.`);
  event.target.reset();
  await loadTokens();
}

async function rotate(t) {
  if (!confirm(`Give ${t.name ?? t.id} a new key? The old key stops working.`)) return;
  const done = await attempt('Rotate', () => api('POST', `/console/api/me/tokens/${encodeURIComponent(t.id)}/rotate`));
  if (!done) return;
  showKey(done.key);
  notice(`${t.name ?? t.id} has a new key; the old one no longer works.`);
  await loadTokens();
}

async function revoke(t) {
  if (!confirm(`Revoke ${t.name ?? t.id}? Its key stops working.`)) return;
  if (!(await attempt('Revoke', () => api('DELETE', `/console/api/me/tokens/${encodeURIComponent(t.id)}`)))) return;
  notice(`Revoked ${t.name ?? t.id}.`);
  await loadTokens();
}

function showKey(key) {
  $('#my-new-key-value').textContent = key;
  $('#my-new-key').hidden = false;
}

// ---- Usage --------------------------------------------------------------------------------------------------------

async function loadUsage() {
  const days = Number(new FormData($('#my-usage-form')).get('days'));
  const q = new URLSearchParams({ group_by: 'model', from: String(Math.floor(Date.now() / 1000) - days * 86_400) });
  const r = await attempt('Usage', () => api('GET', `/console/api/me/usage?${q}`));
  if (!r) return;
  $('#my-usage-empty').hidden = r.data.length > 0;
  fill($('#my-usage-table tbody'), r.data.map((row) => usageRow(row.key, row)));
  fill($('#my-usage-table tfoot'), [usageRow('Total', r.total)]);
}
