// A `realtime` route's session rules and a `client_secret` route's minting rules (routes.yaml), made once at load:
// defaults filled in, transforms compiled, paths split.
import type { ClientSecretRoute, RealtimeRoute } from '../types/generated/routes.js';
import { compileTransform, type Transform } from '../transform/compile-transform.js';

export interface CompiledRealtime {
  subprotocol?: string;
  keySubprotocol?: string;
  /** Event type → the usage paths' name (routes.yaml `usage`) and where the session names the model it is priced at. */
  charges: Map<string, { usage: string; modelAt?: string[] }>;
  sessionEvents: Set<string>;
  response?: { created: string; done: string; cancel: Transform };
  error: Transform;
  maxSessionMs: number;
  idleMs: number;
  maxSessionsPerToken: number;
  maxFrameBytes: number;
  turnTokens: number;
}

export interface CompiledClientSecret {
  for: Set<string>;
  prefix: string;
  ttlAt: string[][];
  ttl: { default: number; min: number; max: number };
  modelAt: string[][];
  sessionAt: string[][];
  update?: Transform;
  answer: Transform;
}

export function compileRealtime(r: RealtimeRoute, ms: number): CompiledRealtime {
  return {
    subprotocol: r.subprotocol,
    keySubprotocol: r.key_subprotocol,
    charges: new Map(Object.entries(r.charges).map(([type, c]) => [type, { usage: c.usage, modelAt: c.model_at?.split('.') }])),
    sessionEvents: new Set(r.session_events ?? []),
    response: r.response && { created: r.response.created, done: r.response.done, cancel: compileTransform(r.response.cancel, ms) },
    error: compileTransform(r.error, ms),
    maxSessionMs: (r.max_session_s ?? 3600) * 1000,
    idleMs: (r.idle_s ?? 600) * 1000,
    maxSessionsPerToken: r.max_sessions_per_token ?? 8,
    maxFrameBytes: r.max_frame_bytes ?? 16 << 20,
    turnTokens: r.turn_tokens ?? 4096,
  };
}

export function compileClientSecret(c: ClientSecretRoute, ms: number): CompiledClientSecret {
  const min = c.min_ttl_s ?? 10;
  const max = c.max_ttl_s ?? 7200;
  return {
    for: new Set(c.for),
    prefix: c.prefix,
    ttlAt: (c.ttl_at ?? []).map((p) => p.split('.')),
    ttl: { min, max, default: Math.min(max, Math.max(min, c.default_ttl_s ?? 600)) },
    modelAt: (c.model_at ?? []).map((p) => p.split('.')),
    sessionAt: (c.session_at ?? []).map((p) => p.split('.')),
    update: c.update ? compileTransform(c.update, ms) : undefined,
    answer: compileTransform(c.answer, ms),
  };
}
