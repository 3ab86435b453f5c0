// Structured logs with pino: one JSON line per request, written asynchronously, secrets redacted.
import { pino, type Logger } from 'pino';
import type { ServerResponse } from 'node:http';
import type { RequestContext } from './pipeline/context.js';

// Keys never reach these fields, but redaction guards against a future stage logging a raw header.
// Exact paths only: wildcard redaction costs a walk of every line.
const redact = ['authorization', 'headers.authorization', 'req.headers.authorization', 'key', 'api_key', 'secret'];

export function createLogger(): Logger {
  const level = process.env.LOG_LEVEL ?? 'info';
  const dest = process.env.SWITCHYARD_LOG_FILE
    ? pino.destination({ dest: process.env.SWITCHYARD_LOG_FILE, sync: false, mkdir: true })
    : pino.destination({ dest: 1, sync: false });
  return pino({ level, redact, base: { pid: process.pid } }, dest);
}

export function logRequest(log: Logger, ctx: RequestContext, res: ServerResponse): void {
  log.info({
    req_id: ctx.id,
    route: ctx.route?.id,
    method: ctx.method,
    path: ctx.url.split('?')[0],
    token_id: ctx.token?.id,
    model: ctx.model,
    channel: ctx.channel,
    attempts: ctx.attempts.length ? ctx.attempts : undefined,
    status: res.statusCode,
    error_code: ctx.errorCode,
    outcome: ctx.outcome,
    latency_ms: Math.round((performance.now() - ctx.started) * 100) / 100,
    added_ms: ctx.addedMs !== undefined ? Math.round(ctx.addedMs * 1000) / 1000 : undefined,
    usage: ctx.usage,
    usage_estimated: ctx.usageEstimated || undefined,
    reserved: ctx.reserved,
    charged: ctx.charged,
    aborted: !res.writableFinished || undefined,
  }, 'request');
}
