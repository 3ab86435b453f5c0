// Route lookup built once: static paths in a map, parameterised paths as precompiled patterns.
import type { CompiledRoute } from '../config/runtime.js';
import { GatewayError, clip } from './errors.js';

interface Dynamic { route: CompiledRoute; pattern: RegExp; names: string[] }

export class RouteTable {
  private readonly exact = new Map<string, CompiledRoute>();
  private readonly dynamic: Dynamic[] = [];
  private readonly paths = new Set<string>();

  constructor(routes: CompiledRoute[]) {
    for (const route of routes) {
      this.paths.add(route.path);
      if (!route.path.includes('{')) { this.exact.set(`${route.method} ${route.path}`, route); continue; }
      const names: string[] = [];
      const src = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}/g, (_m, n: string) => { names.push(n); return '([^/]+)'; });
      this.dynamic.push({ route, pattern: new RegExp(`^${src}$`), names });
    }
  }

  /** Throws not_found (no such path) or method_not_allowed (path exists for another method). */
  match(method: string, path: string): { route: CompiledRoute; params: Record<string, string> } {
    const hit = this.exact.get(`${method} ${path}`);
    if (hit) return { route: hit, params: {} };
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
      return { route: d.route, params };
    }
    if (pathKnown) throw new GatewayError('method_not_allowed', `Method ${clip(method, 16)} is not allowed on ${clip(path, 200)}`);
    throw new GatewayError('not_found', `Invalid URL (${clip(method, 16)} ${clip(path, 200)})`);
  }
}
