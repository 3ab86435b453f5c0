// Stage: the price inputs, checked against the model's bounds, and what the request may cost: the amount reserved.
import { readPriceInputs } from '../billing/price-inputs.js';
import { reservationFor } from '../billing/price.js';
import { priceFor } from '../billing/price-variant.js';
import type { Exchange, Priced, Recalled } from './exchange.js';

/**
 * Throws invalid_request (400) naming the field. A continued conversation counts toward the prompt estimate. The
 * model's price is the one the body selects (`price.variants`), and it travels with the request to its settle.
 */
export function price(ex: Exchange, r: Recalled): Priced {
  const model = priceFor(r.price, r.body);
  const inputs = readPriceInputs(r.route.priceInputs, model, r.body);
  const promptBytes = r.raw.length + (r.previous?.bytes ?? 0);
  const { amount, promptTokens } = reservationFor(model, inputs, promptBytes, ex.g.runtime.promptBytesPerToken);
  return { ...r, price: model, inputs, amount, promptTokens };
}
