// Wraps a request in reserve → settle | refund, keyed by the request id so each step happens once.
import { GatewayError } from '../http/errors.js';
import type { Gateway } from '../gateway.js';
import type { RequestContext, Usage } from '../pipeline/context.js';
import { charge } from './price.js';

/** `work` returns the usage to bill (or an exact charge), or undefined when nothing was delivered (full refund). */
export async function withReservation(g: Gateway, ctx: RequestContext, amount: number, work: () => Promise<Usage | number | undefined>): Promise<void> {
  const account = ctx.token!.id;
  const ok = await g.store.quota.reserve(account, ctx.id, amount, 'request');
  if (!ok) {
    const balance = await g.store.quota.balance(account);
    throw new GatewayError('insufficient_user_quota', `Insufficient quota: this request may cost up to ${amount}, balance is ${balance ?? 0}`);
  }
  ctx.reserved = amount;
  let usage: Usage | number | undefined;
  try {
    usage = await work();
  } catch (err) {
    await g.store.quota.refund(account, ctx.id, amount).catch((e) => g.log.error({ err: e, req_id: ctx.id }, 'refund failed'));
    ctx.charged = 0;
    throw err;
  }
  const price = g.runtime.models.get(ctx.model!);
  ctx.charged = typeof usage === 'number' ? usage : usage && price ? charge(price, usage) : 0;
  await g.store.quota.settle(account, ctx.id, amount, ctx.charged);
}
