// Stage: the price inputs, checked against the model's bounds, and what the request may cost: the amount reserved.
import { readPriceInputs } from '../billing/price-inputs.js';
import { reservationFor } from '../billing/price.js';
import type { Exchange, Priced, Recalled } from './exchange.js';

/** Throws invalid_request (400) naming the field. A continued conversation counts toward the prompt estimate. */
export function price(ex: Exchange, r: Recalled): Priced {
  const inputs = readPriceInputs(r.route.priceInputs, r.price, r.body);
  const promptBytes = r.raw.length + (r.previous?.bytes ?? 0);
  const { amount, promptTokens } = reservationFor(r.price, inputs, promptBytes, ex.g.runtime.promptBytesPerToken);
  return { ...r, inputs, amount, promptTokens };
}
