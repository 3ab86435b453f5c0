// Prometheus metrics: traffic and latency per route and channel, the gateway's own added time, streams, tasks, quota.
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { FastCounter, FastHistogram, type FastMetric } from './fast-metrics.js';
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../pipeline/context.js';
import type { Gateway } from '../pipeline/gateway.js';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'switchyard_process_' });
/** The per-request series, rendered after prom-client's registry at each scrape. */
export const perRequest: FastMetric[] = [];

// Buckets tuned for a gateway's own overhead (tens of µs) up to slow vendors (minutes).
const fastBuckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1];
const slow = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const requests = new FastCounter('switchyard_requests_total', 'Requests by route, channel and status.', ['route', 'channel', 'status'], perRequest);
const duration = new FastHistogram('switchyard_request_duration_seconds', 'Whole request time by route.', ['route'], slow, perRequest);
const upstream = new FastHistogram('switchyard_upstream_duration_seconds', 'Time waiting on upstreams by route and channel.', ['route', 'channel'], slow, perRequest);
const added = new FastHistogram('switchyard_added_latency_seconds', 'Gateway time before the response head (total minus upstream), by route.', ['route'], fastBuckets, perRequest);
export const streamsInFlight = new Gauge({ name: 'switchyard_streams_in_flight', help: 'SSE streams being relayed.', registers: [registry] });
export const realtimeSessions = new Gauge({ name: 'switchyard_realtime_sessions', help: 'Realtime WebSocket sessions open.', registers: [registry] });
const quotaMoved = new FastCounter('switchyard_quota_units_total', 'Quota units reserved, charged, returned, and used beyond a reservation but not charged (uncharged).', ['kind'], perRequest);
const quotaReserved = quotaMoved.child('reserved');
const quotaCharged = quotaMoved.child('charged');
const quotaReturned = quotaMoved.child('returned');
const quotaUncharged = quotaMoved.child('uncharged');
const disconnects = new FastCounter('switchyard_client_disconnects_total', 'Requests whose client went away before the answer was complete (logged as 499).', [], perRequest).child();

/** Per-route series, looked up once per route, channel and status. */
function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let c = cache.get(key);
  if (!c) { c = make(); cache.set(key, c); }
  return c;
}
const perRoute = new Map<string, { duration: { observe(v: number): void }; added: { observe(v: number): void } }>();
const perChannel = new Map<string, { inc(): void; upstream: { observe(v: number): void } }>();

/** Called once per request when its work is over. */
export function observeRequest(ctx: RequestContext, res: ServerResponse): void {
  const route = ctx.route?.id ?? 'unmatched';
  const channel = ctx.channel ?? '';
  const status = String(ctx.logStatus ?? res.statusCode);
  const r = cached(perRoute, route, () => ({ duration: duration.child(route), added: added.child(route) }));
  const c = cached(perChannel, `${route}\u0000${channel}\u0000${status}`, () => ({ ...requests.child(route, channel, status), upstream: upstream.child(route, channel) }));
  c.inc();
  r.duration.observe((performance.now() - ctx.started) / 1000);
  if (ctx.channel) c.upstream.observe(ctx.upstreamMs / 1000);
  if (ctx.addedMs !== undefined) r.added.observe(ctx.addedMs / 1000);
  if (ctx.reserved) quotaReserved.inc(ctx.reserved);
  if (ctx.charged) quotaCharged.inc(ctx.charged);
  if (ctx.reserved !== undefined && ctx.charged !== undefined) quotaReturned.inc(Math.max(0, ctx.reserved - ctx.charged));
  if (ctx.uncharged) quotaUncharged.inc(ctx.uncharged);
  if (ctx.logStatus === 499) disconnects.inc();
}

const openTasks = new Gauge({ name: 'switchyard_tasks_open', help: 'Unfinished tasks in the store.', registers: [registry] });
const inFlight = new Gauge({ name: 'switchyard_requests_in_flight', help: 'Requests being served (streams and downloads included).', registers: [registry] });

export async function serveMetrics(g: Gateway, res: ServerResponse): Promise<void> {
  openTasks.set(await g.store.tasks.count());
  inFlight.set(g.inflight);
  const text = `${await registry.metrics()}${perRequest.map((m) => m.render()).join('')}`;
  res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
