// What every part of the console shares: finding and filling elements (API text always goes in as text, never as
// markup), number and time formats, the notice line, and a budget bar.

export const $ = (sel, root = document) => root.querySelector(sel);

export class SignedOut extends Error {}

/** A fetch of this origin's API as JSON: `auth` adds what the caller signs with (a key, or a CSRF token). */
export async function request(method, path, body, auth = {}) {
  const res = await fetch(path, {
    method,
    headers: { ...auth, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
    cache: 'no-store',
    credentials: 'same-origin',
  });
  const json = await res.json().catch(() => ({}));
  if (res.status === 401 || res.status === 403) throw new SignedOut(json.error?.message ?? 'Refused');
  if (!res.ok) throw Object.assign(new Error(json.error?.message ?? `${method} ${path}: HTTP ${res.status}`), { status: res.status });
  return json;
}

export function notice(text, error = false) {
  const n = $('#notice');
  n.textContent = text;
  n.className = error ? 'error' : text ? 'ok' : '';
}

/** A cell of text; a long value is cut by the stylesheet and kept whole in its title. */
export function cell(text, cls) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (cls) td.className = cls;
  if (typeof text === 'string' && text.length > 12) td.title = text;
  return td;
}

export function button(text, onClick, cls) {
  const b = Object.assign(document.createElement('button'), { type: 'button', textContent: text });
  if (cls) b.className = cls;
  b.addEventListener('click', onClick);
  return b;
}

export const fill = (tbody, rows) => tbody.replaceChildren(...rows);

export const num = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'));
export const when = (s) => (s ? new Date(s * 1000).toISOString().slice(0, 16).replace('T', ' ') : '–');
export const whenMs = (ms) => (ms ? new Date(ms).toISOString().slice(0, 19).replace('T', ' ') : '–');

/** A token's state as the tables show it. */
export const tokenStatus = (t) => (t.revoked ? 'revoked' : t.expires_at !== null && t.expires_at * 1000 < Date.now() ? 'expired' : 'active');

/** A budget for the period as a bar: used of budget, what is left, and when it resets (a <meter>, no inline style). */
export function budgetBar(used, budget, resetsAtMs, label) {
  const box = document.createElement('div');
  box.className = 'budget';
  if (budget === null || budget === undefined) { box.textContent = 'no budget'; return box; }
  const meter = Object.assign(document.createElement('meter'), { min: 0, max: Math.max(budget, 1), value: Math.min(used ?? 0, budget), low: budget * 0.75, high: budget * 0.9, optimum: 0 });
  meter.setAttribute('aria-label', label);
  const words = document.createElement('span');
  const pct = budget > 0 ? Math.round(((used ?? 0) / budget) * 100) : 100;
  words.textContent = `${num(used ?? 0)} of ${num(budget)} (${pct} %)${resetsAtMs ? `, resets ${whenMs(resetsAtMs).slice(0, 16)} UTC` : ''}`;
  box.dataset.used = String(used ?? 0);
  box.dataset.budget = String(budget);
  box.append(meter, words);
  return box;
}

/** One row of a usage table by model. */
export function usageRow(label, r) {
  const tr = document.createElement('tr');
  tr.dataset.model = label;
  tr.append(cell(label), cell(num(r.requests), 'num requests'), cell(num(r.prompt_tokens), 'num'), cell(num(r.completion_tokens), 'num'),
    cell(num(r.cached_tokens), 'num cached'), cell(num(r.cache_write_tokens), 'num'), cell(num(r.reasoning_tokens), 'num'),
    cell(num(r.units), 'num'), cell(num(r.charged), 'num charged'), cell(`$${r.charged_usd.toFixed(4)}`, 'num'), cell(num(r.uncharged), 'num'));
  return tr;
}
