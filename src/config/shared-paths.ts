// Routes may share a method and path only when each names its own operation and picks its model from the path
// (`model_expr` over $params): the model the path names then chooses among them (pipeline/match-route.ts).
import type { RoutesFile } from '../types/generated/routes.js';

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
