// Stages around the upstream call: reserve what the request may cost before it is sent, then settle the charge
// (never above the reservation) or release the reservation when nothing was delivered. A request's reservation lives
// with this process (`request` scope); a task's is `durable`, comes with an in-flight slot of its group, and stays
// open after the answer until the task finishes.
import { GatewayError } from '../http/errors.js';
import type { Exchange, Priced } from './exchange.js';
import type { Usage } from '../transform/usage.js';
import { newTaskId } from '../records/task-record.js';
import { billedUnits, chargeOf } from '../billing/price.js';
import { secondsToCharge } from '../billing/price-inputs.js';
import { classTags, type TokenCounts } from '../billing/token-classes.js';
import type { CloseTags } from '../store/quota-ledger.js';
import { countTokens } from './rate-limit.js';
import type { Level } from '../store/quota-ledger.js';
import { purseOf, refusalOf, type LevelName } from '../accounts/purse.js';
import { refundLevels, settleLevels } from '../accounts/level-moves.js';

/**
 * `at`: when it was made (ms); a task takes its creation time from it, so every attempt's record agrees. `levels`: the
 * accounts it was taken from, the token's first (src/accounts/purse.ts).
 */
export interface Hold { account: string; id: string; amount: number; durable: boolean; at: number; levels: Level[]; names?: LevelName[] }

/** What the answer cost: the upstream's usage, an exact charge, nothing delivered (undefined), or `deferred` (a task). */
export type Bill = Usage | number | undefined | 'deferred';

/** Throws insufficient_user_quota (403), or too_many_requests (429) when a task's group has no slot left. */
export async function reserve(ex: Exchange, p: Priced, scope: 'request' | 'durable'): Promise<Hold> {
  const { g, ctx } = ex;
  if (!Number.isSafeInteger(p.amount) || p.amount < 0) throw new GatewayError('invalid_request', 'The request asks for more than can be priced');
  const id = scope === 'durable' ? newTaskId() : ctx.id;
  const at = Date.now();
  const purse = await purseOf(g.accounts, p.token, id, at);
  const hold: Hold = { account: p.token.id, id, amount: p.amount, durable: scope === 'durable', at, levels: purse.levels, names: purse.names };
  if (hold.durable) await openSlot(ex, p, hold.id);
  const tags = { user: p.token.user, model: p.model, route: p.route.id, units: billedUnits(p.chosen, p.price, p.inputs) };
  const refused = await g.store.quota.reserveLevels(hold.levels, hold.amount, scope, tags);
  if (refused >= 0) {
    if (hold.durable) await g.store.tasks.close(hold.id);
    throw new GatewayError('insufficient_user_quota', refusalOf(purse.names[refused], hold.amount));
  }
  ctx.reserved = hold.amount;
  if (hold.durable) ctx.task = hold.id;
  if (tags.units) ctx.units = tags.units;
  return hold;
}

/** The slot is taken before the money, so a saturated group costs no ledger entry. */
async function openSlot(ex: Exchange, p: Priced, id: string): Promise<void> {
  const limit = ex.g.runtime.groups.get(p.token.group)?.max_inflight_tasks;
  if (!(await ex.g.store.tasks.open(id, p.token.group, limit, Date.now() + ex.g.runtime.tasks.poll_base_ms))) {
    throw new GatewayError('too_many_requests', `The upstream load of group ${p.token.group} is saturated (${limit} tasks in flight); retry later`)
      .because(`group ${p.token.group} has ${limit} tasks in flight: groups.${p.token.group}.max_inflight_tasks`);
  }
}

/**
 * Turns the reservation into the charge, line by line from the usage (or the exact price of what was asked); usage
 * beyond the reservation is recorded as uncharged, never taken.
 */
export async function settle(ex: Exchange, p: Priced, hold: Hold, bill: Bill): Promise<void> {
  if (bill === 'deferred') return;
  const { ctx } = ex;
  const media = { units: p.inputs.units, seconds: p.chosen.per_second ? secondsToCharge(p.price, p.inputs) : undefined };
  const c = bill === undefined ? undefined : chargeOf(p.chosen, typeof bill === 'object' ? bill : undefined, media);
  const actual = typeof bill === 'number' ? bill : c ? c.total : 0;
  if (c) {
    c.total = actual;
    ctx.charge = c;
  }
  // The units the vendor reported billing replace the ones reserved for (search units for the documents sent).
  if (typeof bill === 'object' && bill.units !== undefined && p.chosen.per_call) ctx.units = bill.units;
  const settled = await settleLevels(ex.g.store.quota, hold.levels, hold.amount, actual, closeTagsOf(ctx.channel, bill, c?.classes));
  if (settled.charged > 0) ex.g.alerts?.note(hold.levels, hold.names);
  ex.ctx.charged = settled.charged;
  if (settled.uncharged) ex.ctx.uncharged = settled.uncharged;
  if (typeof bill === 'object') countTokens(ex.g, p.token, bill);
}

/** What the close entry records: the channel, and the usage with its classes where there was usage. */
function closeTagsOf(channel: string | undefined, bill: Bill, classes: TokenCounts | undefined): CloseTags {
  if (typeof bill !== 'object') return { channel };
  const t: CloseTags = { channel, prompt_tokens: bill.prompt_tokens, completion_tokens: bill.completion_tokens };
  // Most answers report no classes beyond input and output: their tags stay unset.
  if (bill.details && classes) Object.assign(t, classTags(classes));
  return t;
}

/**
 * Nothing is owed: the reservation goes back, and a task's slot and pending record go too. A submit cut by a stop
 * is left as it is: the vendor may have it, and the next instance's recovery reconciles it (recovery.ts).
 */
export async function release(ex: Exchange, hold: Hold): Promise<void> {
  const { g, ctx } = ex;
  ctx.charged = 0;
  if (hold.durable && ctx.abort.signal.reason === 'shutdown') return;
  try {
    await refundLevels(g.store.quota, hold.levels, hold.amount, { channel: ctx.channel });
    if (!hold.durable) return;
    await g.store.tasks.close(hold.id);
    await g.tasks.delete(hold.id);
  } catch (err) {
    g.log.error({ err, req_id: ctx.id }, 'refund failed');
  }
}
