// Which models a token may call and list: its own allow-list, then its group's channels.
import type { Model } from '../types/generated/channels.js';
import { GatewayError, clip } from '../http/errors.js';
import type { Gateway } from './gateway.js';
import type { TokenRecord } from '../store/token-store.js';

/** The token's own allow-list first, then its group's channels. */
export function checkAccess(g: Gateway, token: TokenRecord, model: string, operation: string): Model {
  if (token.models && !token.models.includes(model)) throw new GatewayError('model_not_allowed', `This token has no access to model ${clip(model)}`);
  const price = g.runtime.models.get(model);
  if (!price || !g.runtime.candidates(token.group, model, operation).length) {
    throw new GatewayError('model_not_found', `The model ${clip(model)} does not exist or is not available to group ${token.group}`)
      .because(price ? unservedWhy(g, token.group, model) : 'no such model in channels.yaml `models`');
  }
  return price;
}

/** A priced model no channel serves here: the channels that have it, and why each is left out. */
function unservedWhy(g: Gateway, group: string, model: string): string {
  const having = g.runtime.channels.filter((c) => c.models.has(model));
  if (!having.length) return 'no channel lists the model';
  const why = having.slice(0, 5).map((c) => `${c.id}: ${!c.enabled ? 'disabled (enabled: false, or an unset variable)' : !c.groups.has(group) ? `not in group ${group}` : 'no operation of this route for it'}`);
  return `no enabled channel of group ${group} serves it (${why.join('; ')})`;
}

/** Models a token may list, each with the endpoint types that serve it: its group's callable models, narrowed by its allow-list. */
export function visibleModels(g: Gateway, token: TokenRecord): { id: string; endpoints: readonly string[] }[] {
  const out: { id: string; endpoints: readonly string[] }[] = [];
  for (const [id, endpoints] of g.runtime.groupEndpoints(token.group)) {
    const priced = g.runtime.models.get(id);
    if (!priced || priced.hidden || (token.models && !token.models.includes(id))) continue;
    out.push({ id, endpoints });
  }
  return out;
}
