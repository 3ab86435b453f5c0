// Policy `billing`: a token holder's balance and spending in the shape of OpenAI's (legacy) dashboard billing API,
// as new-api serves it, so chat front-ends that show a balance work unchanged. Dollars are quota units divided by
// channels.yaml `billing.units_per_usd`.
//   subscription: the limit (what the token's user has spent plus what the token can still spend: the least any of its
//   levels has left, its caps, the wallet, the team's budget for the period) and when the token expires; with no level
//   bounding it, new-api's unlimited figure (100,000,000);
//   usage: what the token's user spent (every token of theirs: the money is the user's) from `start_date` to `end_date` (YYYY-MM-DD, end exclusive, at most 100 days; default the
//   current month), `total_usage` in cents, with the cost of each day by model;
//   requests, request: its own records of the request log (src/request-log/), searched as operators search them.
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import type { Caller, Exchange } from '../pipeline/exchange.js';
import { readRange } from '../admin/time-range.js';
import { hourMs } from '../store/usage.js';
import type { LocalPolicy } from '../pipeline/policy.js';
import { GatewayError } from '../http/errors.js';
import { logOf, recordsOf, searchPage } from '../admin/requests-api.js';
import { readLogQuery } from '../admin/log-query.js';
import { spendableOf } from '../accounts/purse.js';
import { isUserId } from '../accounts/user-store.js';

const usd = (units: number, perUsd: number) => Math.round((units / perUsd) * 1e6) / 1e6;

/** new-api's limit for a token no quota bounds. */
const unlimitedUsd = 100_000_000;

async function subscription(ex: Exchange, c: Caller): Promise<void> {
  const { g } = ex;
  const [left, spent] = await Promise.all([spendableOf(g.accounts, g.store, c.token, Date.now()), spentBy(ex, c)]);
  const perUsd = g.runtime.unitsPerUsd;
  const limit = left === undefined ? unlimitedUsd : usd(left + spent, perUsd);
  sendJson(ex.res, 200, {
    object: 'billing_subscription', has_payment_method: true, soft_limit_usd: limit, hard_limit_usd: limit,
    system_hard_limit_usd: limit, access_until: c.token.expires_at ?? 0,
    balance_usd: left === undefined ? unlimitedUsd : usd(left, perUsd), balance: left ?? null,
  });
}

/** The accounts the caller's spending is summed over: its user's tokens (the money is the user's), or its own. */
async function accountsOf(ex: Exchange, c: Caller): Promise<string[]> {
  return isUserId(c.token.user) ? ex.g.tokens.idsOf(c.token.user) : [c.token.id];
}

async function spentBy(ex: Exchange, c: Caller): Promise<number> {
  const totals = await Promise.all((await accountsOf(ex, c)).map((a) => ex.g.store.quota.totals(a)));
  return totals.reduce((n, t) => n + t.charged, 0);
}

async function usage(ex: Exchange, c: Caller): Promise<void> {
  const { g } = ex;
  const now = new Date();
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const q = queryOf(ex.ctx.url);
  const range = readRange({ ...q, start_date: q.start_date ?? new Date(monthStart).toISOString().slice(0, 10) }, ['start_date', 'end_date'], 31, 100, now.getTime() + hourMs);
  const perUsd = g.runtime.unitsPerUsd;
  const days = new Map<string, { name: string; cost: number }[]>();
  let total = 0;
  const accounts = await accountsOf(ex, c);
  // One pass per day keeps the per-model split; the range is at most 100 days of hourly rows.
  for (const r of await g.store.quota.usage({ ...range, accounts, groupBy: 'day' })) {
    const dayStart = Date.parse(r.key);
    const byModel = await g.store.quota.usage({ from: Math.max(dayStart, range.from), to: Math.min(dayStart + 86_400_000, range.to), accounts, groupBy: 'model' });
    days.set(r.key, byModel.filter((m) => m.charged > 0).map((m) => ({ name: m.key, cost: usd(m.charged, perUsd) * 100 })));
    total += r.charged;
  }
  sendJson(ex.res, 200, {
    object: 'list', total_usage: usd(total, perUsd) * 100,
    daily_costs: [...days].map(([day, line_items]) => ({ timestamp: Date.parse(day) / 1000, line_items })),
  });
}

/** The token's own requests (GET /v1/requests): a search of the request log narrowed to its records. */
async function requests(ex: Exchange, c: Caller): Promise<void> {
  const q = queryOf(ex.ctx.url);
  if ('token' in q || 'user' in q) throw new GatewayError('invalid_request', 'A token sees its own requests only: `token` and `user` are not filters here');
  sendJson(ex.res, 200, await searchPage(logOf(ex), { ...readLogQuery(q, { defaultLimit: 20, maxLimit: 100 }), token: c.token.id }));
}

/** One of the token's own records (GET /v1/requests/{id}); another token's is not found. */
async function request(ex: Exchange, c: Caller): Promise<void> {
  sendJson(ex.res, 200, { object: 'list', data: await recordsOf(logOf(ex), c.params.id, { token: c.token.id }) });
}

export const billingActions: Record<string, LocalPolicy> = { subscription, usage, requests, request };
