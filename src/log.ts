// Structured logs with pino: one JSON line per request, written asynchronously, secrets redacted.
import { pino, type Logger } from 'pino';
import type { ServerResponse } from 'node:http';
import type { RequestContext } from './pipeline/context.js';

// Keys never reach these fields, but redaction guards against a future stage logging a raw header.
// Exact paths only: wildcard redaction costs a walk of every line.
const redact = ['authorization', 'headers.authorization', 'req.headers.authorization', 'key', 'api_key', 'secret'];

/**
 * Lines are buffered and written in blocks (8 KiB, or every 200 ms when quiet), never one syscall per request.
 * A file gets synchronous block writes: one write(2) per ~15 lines beats handing each line to libuv's threadpool,
 * whose wake-ups cost more than the write. Standard output stays asynchronous, as a pipe reader may be slow.
 * A crash can lose the lines of the last 200 ms; `shutdown` flushes them.
 */
export function createLogger(): Logger {
  const level = process.env.LOG_LEVEL ?? 'info';
  const file = process.env.SWITCHYARD_LOG_FILE;
  const dest = pino.destination({ dest: file ?? 1, sync: Boolean(file), mkdir: Boolean(file), minLength: 8192, periodicFlush: 200 });
  return pino({ level, redact, base: { pid: process.pid } }, dest);
}

/** Resolves once buffered lines are written, or after 1 s: a stop must never hang on its own log. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 1000);
    const done = () => { clearTimeout(timer); resolve(); };
    try { log.flush((err) => { if (err) console.error(`log flush failed: ${err.message}`); done(); }); } catch { done(); }
  });
}

/**
 * The access line has a fixed shape of ids and numbers (never a header or a key), so it is serialized with one
 * JSON.stringify and written to the logger's own destination: a third of the cost of pino's per-field walk, on
 * every request. It carries pino's level, time, pid and msg, so it reads like any other pino line.
 */
export function logRequest(log: Logger, ctx: RequestContext, res: ServerResponse): void {
  if (!log.isLevelEnabled('info')) return;
  const line = {
    level: 30,
    time: Date.now(),
    pid: process.pid,
    req_id: ctx.id,
    route: ctx.route?.id,
    method: ctx.method,
    path: pathOf(ctx.url),
    token_id: ctx.token?.id,
    model: ctx.model,
    channel: ctx.channel,
    attempts: ctx.attempts.length ? ctx.attempts : undefined,
    status: res.statusCode,
    error_code: ctx.errorCode,
    outcome: ctx.outcome,
    latency_ms: Math.round((performance.now() - ctx.started) * 100) / 100,
    added_ms: ctx.addedMs !== undefined ? Math.round(ctx.addedMs * 1000) / 1000 : undefined,
    // The two billed counts only: vendors' nested usage details would double the line's size and cost.
    usage: ctx.usage ? { prompt_tokens: ctx.usage.prompt_tokens, completion_tokens: ctx.usage.completion_tokens } : undefined,
    usage_estimated: ctx.usageEstimated || undefined,
    reserved: ctx.reserved,
    charged: ctx.charged,
    aborted: !res.writableFinished || undefined,
    msg: 'request',
  };
  (log as unknown as Record<symbol, { write(s: string): unknown }>)[pino.symbols.streamSym].write(`${JSON.stringify(line)}\n`);
}

const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
};
