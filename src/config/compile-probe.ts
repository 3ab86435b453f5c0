// A channel's probe as the runtime holds it: the call made once, the answer's judge compiled once.
import type { Probe } from '../types/generated/channels.js';
import { compileTransform, type Transform } from '../transform/compile-transform.js';

export interface CompiledProbe {
  method: 'GET' | 'POST';
  path: string;
  body?: Buffer;
  /** Statuses that prove the key was accepted; undefined: any 2xx. */
  okStatus?: Set<number>;
  /** True on the answer's JSON body when the vendor refused the key without saying so in the status. */
  authFailedWhen?: Transform;
  timeoutMs: number;
}

export const defaultProbeTimeoutMs = 10_000;

export function compileProbe(p: Probe, transformMs: number): CompiledProbe {
  return {
    method: p.method,
    path: p.path,
    body: p.body === undefined ? undefined : Buffer.from(JSON.stringify(p.body)),
    okStatus: p.ok_status && new Set(p.ok_status),
    authFailedWhen: p.auth_failed_when ? compileTransform(p.auth_failed_when, transformMs) : undefined,
    timeoutMs: p.timeout_ms ?? defaultProbeTimeoutMs,
  };
}
