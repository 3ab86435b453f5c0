// Client dialects defined once, each in `dialects/<name>.yaml` (the config directory's first, then the install's):
// the JSONata that translates a client format to and from the unified one, its usage paths and error shape. A route
// or a channel operation names one with `dialect`; routes.yaml may still define one inline under `dialects`.
import type { Diagnostic } from './diagnostics.js';
import type { YamlFile } from './load-yaml.js';
import { readNamedFiles } from './vendor-files.js';
import type { ChannelsFile } from '../types/generated/channels.js';
import type { Dialect, RoutesFile } from '../types/generated/routes.js';

/** Every dialect a route or a channel's operation (its templates' included) names. */
export function dialectNames(routes: RoutesFile, channels: ChannelsFile): string[] {
  const ops = [...channels.channels, ...Object.values(channels.templates ?? {})].flatMap((c) => Object.values(c.operations ?? {}));
  return [...routes.routes.map((r) => r.dialect), ...ops.map((o) => o.dialect)].filter((d): d is string => Boolean(d));
}

/** The dialect files for names routes.yaml does not define inline, loaded but not yet checked. */
export function readDialectFiles(routes: RoutesFile, channels: ChannelsFile, configDir: string, diags: Diagnostic[]): Map<string, YamlFile> {
  return readNamedFiles(dialectNames(routes, channels).filter((n) => !routes.dialects?.[n]), configDir, 'dialects', diags);
}

/** Adds the loaded dialects to routes.yaml's `dialects` (an inline definition of the same name wins). */
export function mergeDialects(routes: RoutesFile, files: Map<string, YamlFile>): void {
  const loaded = Object.fromEntries([...files].map(([name, f]) => [name, f.data as Dialect]));
  routes.dialects = { ...loaded, ...routes.dialects };
}
