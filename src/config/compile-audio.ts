// A `relay` route's audio answer (routes.yaml `audio`) and a vendor's audio events (an operation's `audio`), made
// once at load: paths split, the closing event's transform compiled.
import type { RouteAudio } from '../types/generated/routes.js';
import type { OperationAudio } from '../types/generated/channels.js';
import { compileTransform, type Transform } from '../transform/compile-transform.js';
import { compilePath } from '../transform/usage-paths.js';
import type { PcmLayout } from '../media/wav-header.js';

type Path = ReturnType<typeof compilePath>;

export interface CompiledRouteAudio {
  formatAt: string[][];
  defaultFormat: string;
  contentTypes: Record<string, string>;
  eventsAt?: { path: string[]; value: string | boolean };
  /** The route's own chunk event: `{"type": <type>, <data>: "<base64>"}`; also how its events are read. */
  delta: { type: string; data: string };
  done?: Transform;
}

export interface CompiledOperationAudio {
  data: Path[];
  encoding: 'base64' | 'hex';
  format?: string;
  pcm?: PcmLayout;
}

export function compileRouteAudio(a: RouteAudio, transformMs: number): CompiledRouteAudio {
  return {
    formatAt: a.format_at.map((p) => p.split('.')),
    defaultFormat: a.default_format,
    contentTypes: a.content_types,
    eventsAt: a.events_at && { path: a.events_at.field.split('.'), value: a.events_at.value },
    delta: a.delta,
    done: a.done ? compileTransform(a.done, transformMs) : undefined,
  };
}

export function compileOperationAudio(a: OperationAudio): CompiledOperationAudio {
  return {
    data: a.data.map(compilePath),
    encoding: a.encoding ?? 'base64',
    format: a.format,
    pcm: a.pcm && { rate: a.pcm.rate, channels: a.pcm.channels ?? 1, bits: a.pcm.bits ?? 16 },
  };
}

/** The route's events as a vendor's: a chunk at the delta's field, base64. */
export const routeEventsAsVendor = (a: CompiledRouteAudio): CompiledOperationAudio => ({ data: [compilePath(a.delta.data)], encoding: 'base64' });
