// Stage: an upstream that answered with an error the policy does not pass through is relayed as the gateway's own
// error: a client error (4xx) keeps its status and, when it looks like one, its code; a server error is a 502.
import { GatewayError } from '../http/errors.js';
import { readLimited } from '../transport/read-limited.js';
import type { Sent } from './dispatch.js';

/** Throws the relayed error when the upstream's status is 400 or above. */
export async function relayUpstreamError(sent: Sent): Promise<void> {
  const status = sent.response.statusCode ?? 502;
  if (status < 400) return;
  if (status >= 500) {
    sent.response.resume();
    throw new GatewayError('upstream_error', `Upstream failed: HTTP ${status}`);
  }
  throw await clientError(sent, status);
}

async function clientError(sent: Sent, status: number): Promise<GatewayError> {
  let parsed: unknown;
  try {
    parsed = JSON.parse((await readLimited(sent.response, 1 << 20, sent.channel.timeouts.idle_ms)).toString('utf8'));
  } catch {
    return GatewayError.fromUpstream(status, 'upstream_error', `Upstream rejected the request (HTTP ${status})`);
  }
  // OpenAI-style {error:{...}} or a flat {message, code} envelope.
  const nested = (parsed as { error?: unknown })?.error;
  const mapped = (nested && typeof nested === 'object' ? nested : parsed) as { message?: unknown; code?: unknown; type?: unknown } | undefined;
  const raw = typeof mapped?.message === 'string' && mapped.message ? mapped.message : `Upstream rejected the request (HTTP ${status})`;
  // A vendor's words are relayed bounded; codes and types only when they look like identifiers.
  const message = raw.length > 500 ? `${raw.slice(0, 500)}…` : raw;
  const code = identifier(typeof mapped?.code === 'number' ? String(mapped.code) : mapped?.code) ?? 'upstream_error';
  const type = identifier(mapped?.type) ?? 'upstream_error';
  return GatewayError.fromUpstream(status, code, message, type);
}

const identifier = (v: unknown) => (typeof v === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(v) ? v : undefined);
