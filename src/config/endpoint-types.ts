// Which endpoints can call each model a group reaches, from config alone: a route that calls a model serves it when a
// channel of the group serves the model on the route's operation. The model list offers only models some endpoint
// serves (a priced model behind an operation no route uses would only ever be refused), and names those endpoints.
import type { CompiledChannel, CompiledOperation, CompiledRoute } from './runtime.js';

/** Policies whose requests name a model and are checked against the group's channels (resolve-model.ts, checkAccess). */
const callingPolicies = new Set(['stream', 'json', 'passthrough', 'relay', 'realtime', 'client_secret', 'count_tokens']);

export const callsModel = (r: CompiledRoute) => callingPolicies.has(r.policy) || (r.policy === 'task' && r.task?.action === 'submit');

/** Whether an operation of a channel takes this model: it exists, and names the model or names none. */
export const serves = (op: CompiledOperation | undefined, model: string) => Boolean(op && (!op.models || op.models.has(model)));

/** Per group, each model it can call with the sorted endpoint types that serve it; computed once per group and runtime. */
export function endpointTypesOf(routes: readonly CompiledRoute[], channels: readonly CompiledChannel[]): (group: string) => ReadonlyMap<string, readonly string[]> {
  const calling = routes.filter(callsModel);
  const kept = new Map<string, ReadonlyMap<string, readonly string[]>>();
  return (group) => {
    let byModel = kept.get(group);
    if (byModel) return byModel;
    const found = new Map<string, Set<string>>();
    for (const ch of channels) {
      if (!ch.enabled || !ch.groups.has(group)) continue;
      for (const model of ch.models) {
        for (const r of calling) {
          if (r.model !== undefined && r.model !== model) continue;
          if (!serves(ch.operations.get(r.operation), model)) continue;
          const types = found.get(model) ?? new Set<string>();
          types.add(r.endpointType ?? r.id);
          found.set(model, types);
        }
      }
    }
    byModel = new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([m, t]) => [m, Object.freeze([...t].sort())]));
    kept.set(group, byModel);
    return byModel;
  };
}
