// Routes may share a method and path only when each names its own operation and picks its model from the path
// (`model_expr` over $params): the model the path names then chooses among them (pipeline/match-route.ts).
import type { RoutesFile } from '../types/generated/routes.js';
import type { ChannelsFile } from '../types/generated/channels.js';

type Route = RoutesFile['routes'][number];
const operationOf = (r: Route) => r.operation ?? r.id;

/** Why route `i` may not share its path with the `earlier` ones (indexes of routes on the same method and path). */
export function sharedPathProblem(routes: Route[], i: number, earlier: number[]): string | undefined {
  if (!earlier.length) return undefined;
  const r = routes[i];
  const clash = earlier.some((j) => operationOf(routes[j]) === operationOf(r) || !routes[j].model_expr) || !r.model_expr;
  if (!clash) return undefined;
  return `duplicate route ${r.method} ${r.path} (also /routes/${earlier.join(', /routes/')}): routes sharing a path need different operations and a model_expr over the path`;
}

type Channel = NonNullable<ChannelsFile['channels']>[number];

/**
 * Routes sharing a path where some model is served on more than one of their operations (across every channel, in
 * any group): the path's model picks the first such route before the caller is known, so the other would never be
 * reached for that model. `channels` have their templates merged in.
 */
export function ambiguousModelProblems(routes: Route[], channels: Channel[]): { route: number; message: string }[] {
  const byPath = new Map<string, number[]>();
  routes.forEach((r, i) => byPath.set(`${r.method} ${r.path}`, [...(byPath.get(`${r.method} ${r.path}`) ?? []), i]));
  const problems: { route: number; message: string }[] = [];
  for (const [path, shared] of byPath) {
    if (shared.length < 2) continue;
    const where = new Map<string, Map<string, string>>(); // model → operation → a channel serving it there
    for (const ch of channels) {
      for (const i of shared) {
        const op = ch.operations?.[operationOf(routes[i])];
        if (!op) continue;
        for (const m of op.models ?? ch.models ?? []) {
          const ops = where.get(m) ?? new Map<string, string>();
          if (!ops.has(operationOf(routes[i]))) ops.set(operationOf(routes[i]), ch.id);
          where.set(m, ops);
        }
      }
    }
    for (const [model, ops] of where) {
      if (ops.size < 2) continue;
      const [first, second] = [...ops];
      const i = shared.find((j) => operationOf(routes[j]) === second[0])!;
      problems.push({ route: i, message: `model "${model}" is served on operation ${first[0]} (channel ${first[1]}) and ${second[0]} (channel ${second[1]}), whose routes share ${path}: the path's model picks one route, so each model may be served on only one of them` });
    }
  }
  return problems;
}
