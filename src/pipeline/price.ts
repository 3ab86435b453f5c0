// Stage: the price inputs, checked against the model's bounds, and what the request may cost: the amount reserved.
import { readPriceInputs } from '../billing/price-inputs.js';
import { reservationFor } from '../billing/price.js';
import type { Exchange, Priced, Resolved } from './exchange.js';

/** Throws invalid_request (400) naming the field. */
export function price(ex: Exchange, r: Resolved): Priced {
  const inputs = readPriceInputs(r.route.priceInputs, r.price, r.body);
  const { amount, promptTokens } = reservationFor(r.price, inputs, r.raw.length, ex.g.runtime.promptBytesPerToken);
  return { ...r, inputs, amount, promptTokens };
}
