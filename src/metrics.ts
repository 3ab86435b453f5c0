// Prometheus metrics: traffic and latency per route and channel, the gateway's own added time, streams, tasks, quota.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServerResponse } from 'node:http';
import type { RequestContext } from './pipeline/context.js';
import type { Gateway } from './gateway.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'switchyard_process_' });

// Buckets tuned for a gateway's own overhead (tens of µs) up to slow vendors (minutes).
const fast = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];
const slow = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const requests = new Counter({ name: 'switchyard_requests_total', help: 'Requests by route, channel and status.', labelNames: ['route', 'channel', 'status'], registers: [registry] });
const duration = new Histogram({ name: 'switchyard_request_duration_seconds', help: 'Whole request time by route.', labelNames: ['route'], buckets: slow, registers: [registry] });
const upstream = new Histogram({ name: 'switchyard_upstream_duration_seconds', help: 'Time waiting on upstreams by route and channel.', labelNames: ['route', 'channel'], buckets: slow, registers: [registry] });
const added = new Histogram({ name: 'switchyard_added_latency_seconds', help: 'Gateway time before the response head (total minus upstream), by route.', labelNames: ['route'], buckets: fast, registers: [registry] });
export const streamsInFlight = new Gauge({ name: 'switchyard_streams_in_flight', help: 'SSE streams being relayed.', registers: [registry] });
export const quotaMoved = new Counter({ name: 'switchyard_quota_units_total', help: 'Quota units reserved, charged and refunded.', labelNames: ['kind'], registers: [registry] });

/** Called once per request when its work is over. */
export function observeRequest(ctx: RequestContext, res: ServerResponse): void {
  const route = ctx.route?.id ?? 'unmatched';
  const channel = ctx.channel ?? '';
  requests.inc({ route, channel, status: String(res.statusCode) });
  duration.observe({ route }, (performance.now() - ctx.started) / 1000);
  if (ctx.channel) upstream.observe({ route, channel }, ctx.upstreamMs / 1000);
  if (ctx.addedMs !== undefined) added.observe({ route }, ctx.addedMs / 1000);
  if (ctx.reserved) quotaMoved.inc({ kind: 'reserved' }, ctx.reserved);
  if (ctx.charged) quotaMoved.inc({ kind: 'charged' }, ctx.charged);
  if (ctx.reserved !== undefined && ctx.charged !== undefined) quotaMoved.inc({ kind: 'returned' }, Math.max(0, ctx.reserved - ctx.charged));
}

const openTasks = new Gauge({ name: 'switchyard_tasks_open', help: 'Unfinished tasks in the store.', registers: [registry] });

export async function serveMetrics(g: Gateway, res: ServerResponse): Promise<void> {
  openTasks.set(await g.store.tasks.count());
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
