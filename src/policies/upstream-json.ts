// Reads an upstream's JSON answer whole, within the route's response bound.
import { GatewayError } from '../http/errors.js';
import { readLimited, BodyTooLarge } from '../transport/read-limited.js';
import type { Sent } from '../pipeline/dispatch.js';
import type { Exchange } from '../pipeline/exchange.js';

/**
 * Throws bad_response_body (502) when the body is too large, cut, or not JSON; its reason names `setting`, the
 * key of `maxBytes` when the route's config sets it.
 */
export async function readUpstreamJson(ex: Exchange, sent: Sent, maxBytes: number, setting?: string): Promise<{ raw: Buffer; parsed: unknown }> {
  const t0 = performance.now();
  let raw: Buffer;
  try {
    raw = await readLimited(sent.response, maxBytes, sent.channel.timeouts.idle_ms);
  } catch (err) {
    const large = err instanceof BodyTooLarge;
    const why = large ? `is over ${maxBytes} bytes${setting ? ` (${setting})` : ''}` : `could not be read: ${(err as Error).message} (the channel's timeouts.idle_ms bounds a pause)`;
    throw new GatewayError('bad_response_body', `Bad upstream response body: ${large ? (err as Error).message : 'upstream body is not valid JSON'}`).because(`${answerOf(sent)} ${why}`);
  }
  ex.ctx.upstreamMs += performance.now() - t0;
  try {
    return { raw, parsed: JSON.parse(raw.toString('utf8')) };
  } catch {
    throw new GatewayError('bad_response_body', 'Bad upstream response body: upstream body is not valid JSON').because(`${answerOf(sent)} is not JSON (${raw.length} bytes)`);
  }
}

/** Named only in a refusal: no string is built for an answer that reads fine. */
const answerOf = (sent: Sent) => `the answer of channel ${sent.channel.id} (HTTP ${sent.response.statusCode})`;
