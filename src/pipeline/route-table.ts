// Route lookup built once: static paths in a map, parameterised paths as precompiled patterns. Routes sharing a
// method and path (each for its own operation, e.g. one path for image and chat models) come back together, the
// first as `route` and the rest as `alternates`, for the pipeline to choose among by model.
import type { CompiledRoute } from '../config/runtime.js';
import { GatewayError, clip } from '../http/errors.js';

interface Dynamic { route: CompiledRoute; pattern: RegExp; names: string[] }
export interface RouteMatch { route: CompiledRoute; params: Record<string, string>; alternates?: CompiledRoute[] }

export class RouteTable {
  private readonly exact = new Map<string, CompiledRoute>();
  private readonly dynamic: Dynamic[] = [];
  private readonly paths = new Set<string>();
  private readonly others = new Map<CompiledRoute, CompiledRoute[]>();

  constructor(routes: CompiledRoute[]) {
    const first = new Map<string, CompiledRoute>();
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      const earlier = first.get(key);
      if (earlier) { this.others.set(earlier, [...(this.others.get(earlier) ?? []), route]); continue; }
      first.set(key, route);
      this.paths.add(route.path);
      if (!route.path.includes('{')) { this.exact.set(key, route); continue; }
      const names: string[] = [];
      const src = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, n: string) => { names.push(n); return '([^/]+)'; });
      this.dynamic.push({ route, pattern: new RegExp(`^${src}$`), names });
    }
  }

  /** Throws not_found (no such path) or method_not_allowed (path exists for another method). */
  match(method: string, path: string): RouteMatch {
    const hit = this.exact.get(`${method} ${path}`);
    if (hit) return this.with(hit, {});
    let pathKnown = this.paths.has(path);
    for (const d of this.dynamic) {
      const m = d.pattern.exec(path);
      if (!m) continue;
      if (d.route.method !== method) { pathKnown = true; continue; }
      const params: Record<string, string> = {};
      try {
        d.names.forEach((n, i) => { params[n] = decodeURIComponent(m[i + 1]); });
      } catch {
        throw new GatewayError('invalid_request', `Malformed percent-encoding in ${clip(path, 200)}`);
      }
      return this.with(d.route, params);
    }
    if (pathKnown) throw new GatewayError('method_not_allowed', `Method ${clip(method, 16)} is not allowed on ${clip(path, 200)}`);
    throw new GatewayError('not_found', `Invalid URL (${clip(method, 16)} ${clip(path, 200)})`);
  }

  private with(route: CompiledRoute, params: Record<string, string>): RouteMatch {
    const alternates = this.others.get(route);
    return alternates ? { route, params, alternates } : { route, params };
  }
}
