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

// Labelled children are looked up once per label set: prom-client hashes a label object on every call otherwise.
function child<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let c = cache.get(key);
  if (!c) { c = make(); cache.set(key, c); }
  return c;
}
const requestChildren = new Map<string, { inc(): void }>();
const durationChildren = new Map<string, { observe(v: number): void }>();
const upstreamChildren = new Map<string, { observe(v: number): void }>();
const addedChildren = new Map<string, { observe(v: number): void }>();

/** Called once per request when its work is over. */
export function observeRequest(ctx: RequestContext, res: ServerResponse): void {
  const route = ctx.route?.id ?? 'unmatched';
  const channel = ctx.channel ?? '';
  const status = String(res.statusCode);
  child(requestChildren, `${route}\u0000${channel}\u0000${status}`, () => requests.labels(route, channel, status)).inc();
  child(durationChildren, route, () => duration.labels(route)).observe((performance.now() - ctx.started) / 1000);
  if (ctx.channel) child(upstreamChildren, `${route}\u0000${channel}`, () => upstream.labels(route, channel)).observe(ctx.upstreamMs / 1000);
  if (ctx.addedMs !== undefined) child(addedChildren, route, () => added.labels(route)).observe(ctx.addedMs / 1000);
  if (ctx.reserved) quotaReserved.inc(ctx.reserved);
  if (ctx.charged) quotaCharged.inc(ctx.charged);
  if (ctx.reserved !== undefined && ctx.charged !== undefined) quotaReturned.inc(Math.max(0, ctx.reserved - ctx.charged));
}
const quotaReserved = quotaMoved.labels('reserved');
const quotaCharged = quotaMoved.labels('charged');
const quotaReturned = quotaMoved.labels('returned');

const openTasks = new Gauge({ name: 'switchyard_tasks_open', help: 'Unfinished tasks in the store.', registers: [registry] });

export async function serveMetrics(g: Gateway, res: ServerResponse): Promise<void> {
  openTasks.set(await g.store.tasks.count());
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
