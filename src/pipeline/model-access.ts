// Decides whether the token may use a model: its own allow-list, then its group's channels.
import type { Model } from '../types/generated/channels.js';
import { GatewayError, clip } from '../http/errors.js';
import type { Gateway } from '../gateway.js';
import type { TokenRecord } from '../store/token-store.js';

export function resolveModel(g: Gateway, token: TokenRecord, model: string, operation: string): Model {
  if (token.models && !token.models.includes(model)) {
    throw new GatewayError('model_not_allowed', `This token has no access to model ${clip(model)}`);
  }
  const price = g.runtime.models.get(model);
  if (!price || !g.runtime.candidates(token.group, model, operation).length) {
    throw new GatewayError('model_not_found', `The model ${clip(model)} does not exist or is not available to group ${token.group}`);
  }
  return price;
}

/** Models a token may list: its group's reachable models, narrowed by its allow-list. */
export function visibleModels(g: Gateway, token: TokenRecord): string[] {
  const all = g.runtime.groupModels(token.group).filter((m) => g.runtime.models.has(m) && !g.runtime.models.get(m)!.hidden);
  return token.models ? all.filter((m) => token.models!.includes(m)) : all;
}
