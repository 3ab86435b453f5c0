// The access line and the request log's record of a finished request as they were built before one serializer made
// both (src/finished-request.ts): each from its own object, with JSON.stringify. Kept as the reference the
// serializer is held to, field by field and byte by byte.
import type { ServerResponse } from 'node:http';
import type { RequestContext } from '../../src/pipeline/context.js';
import type { RequestRecord } from '../../src/request-log/log-store.js';
import { droppedFields } from '../../src/policies/dropped.js';
import { usageSummary } from '../../src/request-log/records.js';
import { bounded, pathOf } from '../../src/request-log/log-fields.js';

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

export function referenceLine(ctx: RequestContext, res: ServerResponse): string {
  const line = {
    level: 30, time: Date.now(), pid: process.pid, req_id: ctx.id, route: ctx.route?.id, method: ctx.method,
    path: bounded(pathOf(ctx.url)), token_id: ctx.token?.id, model: ctx.model === undefined ? undefined : bounded(ctx.model),
    channel: ctx.channel, attempts: ctx.attempts.length ? ctx.attempts : undefined, status: ctx.logStatus ?? res.statusCode,
    error_code: ctx.errorCode, clamped: ctx.clamped, reason: ctx.reason === undefined ? undefined : bounded(ctx.reason, 512),
    outcome: ctx.outcome, latency_ms: Math.round((performance.now() - ctx.started) * 100) / 100,
    added_ms: ctx.addedMs !== undefined ? Math.round(ctx.addedMs * 1000) / 1000 : undefined,
    usage: ctx.usage ? usageSummary(ctx.usage, ctx.charge?.classes) : undefined, usage_estimated: ctx.usageEstimated || undefined,
    reserved: ctx.reserved, charged: ctx.charged, uncharged: ctx.uncharged,
    charge_lines: ctx.charge?.lines.map((l) => [l.item, l.quantity, l.rate, Math.round(l.units * 1e6) / 1e6]),
    tier: ctx.charge?.tier, price: ctx.charge?.chose, aborted: !res.writableFinished || undefined, ...droppedFields(ctx), msg: 'request',
  };
  return `${JSON.stringify(line)}\n`;
}

export function referenceRecord(ctx: RequestContext, res: ServerResponse): RequestRecord {
  const now = Date.now();
  const latency = performance.now() - ctx.started;
  const t = ctx.token;
  const c = ctx.charge;
  return {
    id: ctx.id, kind: 'request', at: now, started_at: Math.round(now - latency),
    token: t?.id ?? null, user: t?.user ?? null, group: t?.group ?? null,
    route: ctx.route?.id ?? null, method: ctx.method, path: bounded(pathOf(ctx.url)),
    model: ctx.model === undefined ? null : bounded(ctx.model), served_model: ctx.responseModel ?? null,
    channel: ctx.channel ?? null, attempts: ctx.attempts,
    status: ctx.logStatus ?? res.statusCode, error_code: ctx.errorCode ?? null, outcome: ctx.outcome ?? null,
    reason: ctx.reason === undefined ? null : bounded(ctx.reason, 512),
    usage: ctx.usage ? usageSummary(ctx.usage, ctx.charge?.classes) : null, usage_estimated: ctx.usageEstimated ?? null,
    units: ctx.units ?? null, task: ctx.task ?? null, reserved: ctx.reserved ?? null, charged: ctx.charged ?? null, uncharged: ctx.uncharged ?? null,
    vendor_charged: null,
    charge_lines: c?.lines.map((l) => [l.item, l.quantity, round(l.rate, 6), round(l.units, 6)] as [string, number, number, number]) ?? [],
    tier: c?.tier ?? null, price: c?.chose ?? null,
    latency_ms: round(latency), first_byte_ms: ctx.firstByteMs === undefined ? null : round(ctx.firstByteMs),
    client: res.req?.socket?.remoteAddress ?? null,
  };
}
