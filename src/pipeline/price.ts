// Stage: the price inputs and the fields the vendor bills by, checked before anything is reserved, the price they
// choose, and what the request may cost: the amount reserved.
import { readPriceInputs } from '../billing/price-inputs.js';
import { reservationFor } from '../billing/price.js';
import { choosePrice } from '../billing/choose-price.js';
import { clampedHeader, withClamped } from '../billing/completion-limit.js';
import type { Exchange, Priced, Recalled } from './exchange.js';

/**
 * Throws invalid_request (400) naming the field. A continued conversation counts toward the prompt estimate. The
 * price is the one the body chooses (`price.dimensions` and `variants`), and it travels with the request to its
 * settle (a task keeps it on its record).
 */
export function price(ex: Exchange, r: Recalled): Priced {
  const chosen = choosePrice(ex.g.runtime.prices.get(r.model)!, r.body);
  const inputs = readPriceInputs(r.route.priceInputs, r.price, r.body, ex.g.runtime.promptBytesPerToken);
  const promptBytes = r.raw.length + (r.previous?.bytes ?? 0);
  const { amount, promptTokens } = reservationFor(chosen, r.price, inputs, promptBytes, ex.g.runtime.promptBytesPerToken);
  return { ...clamp(ex, r, inputs.clamped), chosen, inputs, amount, promptTokens };
}

/**
 * A completion limit lowered to the model's maximum is lowered in what every later stage reads: the body (so a
 * translation sends it) and the bytes (so an untouched pass-through does). The client is told in a header set now,
 * so whatever answer follows, success or error, carries it.
 */
function clamp(ex: Exchange, r: Recalled, clamped: Priced['inputs']['clamped']): Recalled {
  if (!clamped.length) return r;
  const said = clampedHeader(clamped);
  ex.ctx.clamped = said;
  ex.res.setHeader('x-switchyard-clamped', said);
  const body = withClamped(r.body, clamped);
  return { ...r, body, raw: r.raw.length ? Buffer.from(JSON.stringify(body)) : r.raw };
}
