// The request log, for the operator (/admin/requests) and for a signed-in user (their own, /console/api/me/requests):
// a search, a table whose columns fit the page (long values cut, whole in their title), and a record opened as a
// readable summary (what was asked and answered, each attempt, the usage, the charge's lines) with its raw JSON one
// click away.
import { $, button, cell, fill, num, whenMs } from './common.js';

/**
 * `get(path)`: the caller's authenticated GET; `base`: the search's path (one record is `${base}/{id}`); `ids`: the
 * selectors of the form, the table, the "older" button and the detail box; `filters`: the form's filter names.
 */
export function requestLog({ get, base, ids, filters, attempt }) {
  let cursor = null;

  function query() {
    const f = new FormData($(ids.form));
    const q = new URLSearchParams({ from: String(Math.floor(Date.now() / 1000) - Number(f.get('hours')) * 3600) });
    for (const name of filters) {
      const v = String(f.get(name) ?? '').trim();
      if (v) q.set(name, v);
    }
    return q;
  }

  async function load(more = false) {
    const q = query();
    q.set('limit', '50');
    if (more && cursor) q.set('cursor', cursor);
    const page = await attempt('Request log', () => get(`${base}?${q}`));
    if (!page) return;
    const rows = page.data.map(row);
    if (more) $(`${ids.table} tbody`).append(...rows); else fill($(`${ids.table} tbody`), rows);
    cursor = page.next_cursor;
    $(ids.more).hidden = !page.has_more;
  }

  function row(r) {
    const tr = document.createElement('tr');
    const u = r.usage ?? {};
    const id = cell(r.id, 'mono link');
    id.tabIndex = 0;
    id.title = `${r.id}: open its record`;
    id.addEventListener('click', () => open(r.id));
    id.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(r.id); });
    const tokens = cell(`${num(u.prompt_tokens ?? 0)} / ${num(u.completion_tokens ?? 0)}`, 'num');
    tokens.title = `prompt ${num(u.prompt_tokens ?? 0)} (cached ${num(u.cached_tokens ?? 0)}), completion ${num(u.completion_tokens ?? 0)}`;
    const ms = cell(r.latency_ms === undefined || r.latency_ms === null ? '–' : num(Math.round(r.latency_ms)), 'num');
    ms.title = `first byte after ${r.first_byte_ms ?? '–'} ms`;
    tr.append(cell(whenMs(r.at).slice(5)), id, cell(r.token ?? '–', 'mono'), cell(r.model ?? '–'), cell(r.channel ?? '–'),
      cell(String(r.status ?? r.outcome ?? '–'), 'num'), cell(r.error_code ?? ''), tokens, cell(num(r.charged ?? 0), 'num'), ms);
    return tr;
  }

  async function open(id) {
    const one = await attempt('Request', () => get(`${base}/${encodeURIComponent(id)}`));
    if (!one) return;
    showRecords($(ids.detail), id, one.data);
  }

  $(ids.form).addEventListener('submit', (e) => { e.preventDefault(); load(); });
  $(ids.more).addEventListener('click', () => load(true));
  return { load };
}

/** The records of one id (a task has its submit's and its own) as a summary each, then the raw JSON on demand. */
function showRecords(box, id, records) {
  const head = document.createElement('h3');
  head.textContent = `Record ${id}`;
  const raw = Object.assign(document.createElement('pre'), { className: 'mono raw', hidden: true, textContent: JSON.stringify(records, null, 2) });
  const toggle = button('Raw JSON', () => { raw.hidden = !raw.hidden; toggle.textContent = raw.hidden ? 'Raw JSON' : 'Hide raw JSON'; }, 'quiet raw-toggle');
  toggle.setAttribute('aria-expanded', 'false');
  toggle.addEventListener('click', () => toggle.setAttribute('aria-expanded', String(!raw.hidden)));
  const close = button('Close', () => { box.hidden = true; box.replaceChildren(); }, 'quiet');
  const bar = document.createElement('p');
  bar.append(toggle, close);
  box.replaceChildren(head, ...records.map(summary), bar, raw);
  box.hidden = false;
  box.scrollIntoView({ block: 'nearest' });
}

function summary(r) {
  const part = document.createElement('div');
  part.className = 'record';
  const served = r.served_model && r.served_model !== r.model ? ` → ${r.served_model}` : '';
  part.append(facts([
    ['Kind', r.kind], ['Finished', `${whenMs(r.at)} UTC`], ['Route', [r.route, r.method, r.path].filter(Boolean).join(' ')],
    ['Model', r.model ? `${r.model}${served}` : null], ['Token', r.token], ['User', r.user], ['Channel', r.channel],
    ['Status', [r.status, r.outcome, r.error_code].filter((x) => x !== null && x !== undefined).join(' · ')],
    ['Why', r.reason], ['Took', r.latency_ms === null || r.latency_ms === undefined ? null : `${num(Math.round(r.latency_ms))} ms (first byte ${r.first_byte_ms ?? '–'} ms)`],
    ['Task', r.task],
  ]));
  if (r.attempts?.length) part.append(titled('Attempts', table(['Channel', 'Status', 'Error', 'ms'], r.attempts.map((a) => [a.channel, a.status ?? '–', a.error ?? '', num(a.ms)]), [1, 3])));
  const usage = Object.entries(r.usage ?? {}).filter(([, v]) => v);
  if (usage.length) part.append(titled(`Usage${r.usage_estimated ? ' (estimated: the vendor reported none)' : ''}`, facts(usage.map(([k, v]) => [k.replace(/_/g, ' '), num(v)]))));
  part.append(titled('Charge', charge(r)));
  return part;
}

function charge(r) {
  const box = document.createElement('div');
  box.className = 'charge';
  if (r.charge_lines?.length) {
    const t = table(['Item', 'Quantity', 'Rate', 'Units'], r.charge_lines.map(([item, qty, rate, units]) => [item, num(qty), num(rate), num(units)]), [1, 2, 3]);
    t.classList.add('charge-lines');
    box.append(t);
  }
  box.append(facts([['Reserved', num(r.reserved)], ['Charged', num(r.charged)], ['Not charged', r.uncharged ? num(r.uncharged) : null],
    ['Vendor charged', r.vendor_charged ? num(r.vendor_charged) : null], ['Tier', r.tier], ['Price options', r.price ? JSON.stringify(r.price) : null]]));
  return box;
}

/** Label and value pairs, the empty ones left out. */
function facts(pairs) {
  const dl = document.createElement('dl');
  for (const [k, v] of pairs) {
    if (v === null || v === undefined || v === '' || v === '–') continue;
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    dl.append(dt, dd);
  }
  return dl;
}

/** A small table; `numeric`: the columns aligned as numbers. */
function table(head, rows, numeric = []) {
  const t = document.createElement('table');
  t.className = 'small';
  const tr = document.createElement('tr');
  for (const h of head) tr.append(Object.assign(document.createElement('th'), { textContent: h }));
  t.createTHead().append(tr);
  const body = t.createTBody();
  for (const r of rows) {
    const row = document.createElement('tr');
    r.forEach((v, i) => row.append(cell(String(v), numeric.includes(i) ? 'num' : undefined)));
    body.append(row);
  }
  return t;
}

function titled(text, content) {
  const s = document.createElement('section');
  s.append(Object.assign(document.createElement('h4'), { textContent: text }), content);
  return s;
}
