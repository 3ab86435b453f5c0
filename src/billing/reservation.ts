// Wraps a request in reserve → settle | refund, keyed by the request id so each step happens once.
import { GatewayError } from '../http/errors.js';
import type { Gateway } from '../gateway.js';
import type { RequestContext, Usage } from '../pipeline/context.js';
import { charge } from './price.js';

/**
 * `work` returns the usage to bill (or an exact charge), or undefined when nothing was delivered (full refund).
 * The charge never exceeds the reservation: what usage asks beyond it is recorded as uncharged, never taken.
 */
export async function withReservation(g: Gateway, ctx: RequestContext, amount: number, work: () => Promise<Usage | number | undefined>): Promise<void> {
  const account = ctx.token!.id;
  await reserve(g, ctx, account, ctx.id, amount, 'request');
  let usage: Usage | number | undefined;
  try {
    usage = await work();
  } catch (err) {
    await g.store.quota.refund(account, ctx.id, amount).catch((e) => g.log.error({ err: e, req_id: ctx.id }, 'refund failed'));
    ctx.charged = 0;
    throw err;
  }
  const price = g.runtime.models.get(ctx.model!);
  const actual = typeof usage === 'number' ? usage : usage && price ? charge(price, usage) : 0;
  const settled = await g.store.quota.settle(account, ctx.id, amount, actual);
  ctx.charged = settled.charged;
  if (settled.uncharged) ctx.uncharged = settled.uncharged;
}

/** Reserves `amount` or throws insufficient_user_quota; an amount out of range never reaches the store. */
export async function reserve(g: Gateway, ctx: RequestContext, account: string, request: string, amount: number, scope: 'request' | 'durable'): Promise<void> {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new GatewayError('invalid_request', 'The request asks for more than can be priced');
  if (!(await g.store.quota.reserve(account, request, amount, scope))) {
    const balance = await g.store.quota.balance(account);
    throw new GatewayError('insufficient_user_quota', `Insufficient quota: this request may cost up to ${amount}, balance is ${balance ?? 0}`);
  }
  ctx.reserved = amount;
}
