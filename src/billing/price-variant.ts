// A model's price for one request: a variant chosen by a body field (e.g. a video model's largest sizes) replaces the
// price fields it names. Read when the request is priced, so the reservation, and a task's charge, follow it.
import type { Model } from '../types/generated/channels.js';
import { valueAt } from './price-inputs.js';

export function priceFor(model: Model, body: Record<string, unknown>): Model {
  const chosen = model.price.variants?.find((v) => {
    const value = valueAt(body, v.when.field.split('.'));
    return v.when.in.some((x) => x === value);
  });
  if (!chosen) return model;
  const { when: _when, ...fields } = chosen;
  return { ...model, price: { ...model.price, ...fields } };
}
