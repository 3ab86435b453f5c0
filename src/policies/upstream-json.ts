// Reads an upstream's JSON answer whole, within the route's response bound.
import { GatewayError } from '../http/errors.js';
import { readLimited, BodyTooLarge } from '../transport/read-limited.js';
import type { Sent } from '../pipeline/dispatch.js';
import type { Exchange } from '../pipeline/exchange.js';

/** Throws bad_response_body (502) when the body is too large, cut, or not JSON. */
export async function readUpstreamJson(ex: Exchange, sent: Sent, maxBytes: number): Promise<{ raw: Buffer; parsed: unknown }> {
  const t0 = performance.now();
  try {
    const raw = await readLimited(sent.response, maxBytes, sent.channel.timeouts.idle_ms);
    ex.ctx.upstreamMs += performance.now() - t0;
    return { raw, parsed: JSON.parse(raw.toString('utf8')) };
  } catch (err) {
    throw new GatewayError('bad_response_body', `Bad upstream response body: ${err instanceof BodyTooLarge ? err.message : 'upstream body is not valid JSON'}`);
  }
}
