// GET /admin/channels: each channel as this instance sees it now: enabled, breaker and back-pressure, attempts and
// errors over the breaker's window, latency percentiles, and requests in flight on it.
import { sendJson } from '../http/send-json.js';
import type { Exchange } from '../pipeline/exchange.js';

export async function serveChannels(ex: Exchange): Promise<void> {
  const { g } = ex;
  const now = Date.now();
  const windowMs = g.runtime.breaker.windowMs;
  const inFlight = new Map<string, number>();
  for (const ctx of g.active) if (ctx.channel) inFlight.set(ctx.channel, (inFlight.get(ctx.channel) ?? 0) + 1);
  const data = g.runtime.channels.map((c) => ({
    id: c.id, object: 'channel', enabled: c.enabled, priority: c.priority, weight: c.weight,
    groups: [...c.groups], models: [...c.models], operations: [...c.operations.keys()],
    ...g.breakers.describe(c.id, now),
    window_s: windowMs / 1000,
    ...g.channelStats.summary(c.id, windowMs, now),
    in_flight: inFlight.get(c.id) ?? 0,
  }));
  sendJson(ex.res, 200, { object: 'list', instance: g.store.instance, data });
}
