// The JSONata in the config parses: every transform slot of routes, dialects, channels, templates and vendor files,
// compiled once here so a typo is a config error with its place, not a 500 at the first request that runs it.
import { compileTransform, TransformError } from '../transform/compile-transform.js';
import type { ChannelsFile } from '../types/generated/channels.js';
import type { RoutesFile } from '../types/generated/routes.js';

const jsonataSlots = ['request', 'response', 'chunk', 'path_expr', 'model_expr', 'answer', 'error_answer', 'list_answer', 'resolve'];

/** Parses every JSONata slot found in an object tree (operations, poll blocks, task routes). */
export function parseSlots(node: unknown, base: string, at: (p: string, m: string) => void, slots = jsonataSlots): void {
  if (!node || typeof node !== 'object') return;
  for (const [k, v] of Object.entries(node)) {
    if (typeof v === 'string' && slots.includes(k)) {
      try { compileTransform(v, 50); } catch (e) {
        if (e instanceof TransformError) at(`${base}/${k}`, e.message);
        else throw e;
      }
    } else if (v && typeof v === 'object' && k !== 'status_map') parseSlots(v, `${base}/${k}`, at, slots);
  }
}

export const dialectSlots = ['functions', 'request', 'response', 'conversation', 'error', 'init', 'event', 'end'];

export function routeTransformsLayer(routes: RoutesFile, at: (p: string, m: string) => void): void {
  routes.routes.forEach((r, i) => parseSlots(r, `/routes/${i}`, at));
  for (const [name, d] of Object.entries(routes.dialects ?? {})) parseSlots(d, `/dialects/${name}`, at, dialectSlots);
}

export function transformsLayer(channels: ChannelsFile, at: (p: string, m: string) => void): void {
  const visit = (ops: Record<string, unknown> | undefined, base: string) => parseSlots(ops, base, at);
  channels.channels.forEach((c, i) => visit(c.operations as never, `/channels/${i}/operations`));
  for (const [name, t] of Object.entries(channels.templates ?? {})) visit(t.operations as never, `/templates/${name}/operations`);
}
