// A finished request's one record, serialized once into what both logs keep: the request log's row (log-columns.ts:
// the columns, then the rest of the record as JSON) and the access line (log.ts). Each field is read from the context
// and turned into JSON once; the fields both logs have (path, attempts, reason, usage, charge lines, price) go into
// both as the same text. No record object is built on the way: at the end of every request, building one, walking it
// for the row and serializing it again for the line cost more than the request's own relay (docs/contributors/performance.md).
// The row is the one `rowOf(record)` gives (the record of schemas/api/request-record.response.json, null fields in its
// rest), the line the access line's fields in their order, absent ones left out (test/finished-request.test.ts).
import type { ServerResponse } from 'node:http';
import type { RequestContext } from './pipeline/context.js';
import type { ChargeLine } from './billing/price.js';
import { bounded, pathOf } from './request-log/log-fields.js';
import { droppedFields } from './policies/dropped.js';
import { columnText } from './request-log/log-columns.js';
import type { Row } from './request-log/log-store.js';
import { usageSummary } from './request-log/records.js';

export interface Finished {
  /** The access line, newline included (when asked for). */
  line?: string;
  /** The request log's row (when asked for). */
  row?: Row;
}

const j = JSON.stringify;
const r2 = (x: number) => Math.round(x * 100) / 100;
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;
/** A number as JSON.stringify writes it, without its call (a few dozen per request). */
const num = (x: number) => (Number.isFinite(x) ? `${x}` : 'null');

/**
 * The JSON of the strings that come from a small set (route and channel ids, methods, token ids, users, groups),
 * remembered: a map lookup costs a fraction of a JSON.stringify call. Bounded, as tokens come and go.
 */
const quotedCache = new Map<string, string>();
function quoted(s: string): string {
  let q = quotedCache.get(s);
  if (q === undefined) {
    if (quotedCache.size >= 4096) quotedCache.clear();
    quotedCache.set(s, (q = j(s)));
  }
  return q;
}

/** JSON of a value that may be absent from the record: null then. */
const orNull = (v: unknown) => (v === undefined || v === null ? 'null' : typeof v === 'number' ? num(v) : j(v));

/**
 * A flat object (an attempt, a usage summary) as JSON.stringify writes it, for objects whose keys need no escaping:
 * each value through its own path, an absent one left out.
 */
function flatJson(o: object): string {
  let out = '';
  for (const k in o) {
    const v = (o as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out += `${out ? ',' : '{'}"${k}":${typeof v === 'number' ? num(v) : typeof v === 'string' ? quoted(v) : j(v)}`;
  }
  return out ? `${out}}` : '{}';
}

/** `[item, quantity, rate, units]` a line: the record's rates and units to 6 digits, the access line's rate as priced. */
function chargeLines(lines: ChargeLine[]): { row: string; line: string } {
  let row = '', line = '';
  for (const l of lines) {
    const head = `${row ? ',' : '['}[${quoted(l.item)},${num(l.quantity)},`;
    const units = num(r6(l.units));
    row += `${head}${num(r6(l.rate))},${units}]`;
    line += `${head}${num(l.rate)},${units}]`;
  }
  return row ? { row: `${row}]`, line: `${line}]` } : { row: '[]', line: '[]' };
}

/**
 * The text as one string in memory. Concatenation makes a tree of its pieces, and the row waits in the writer's buffer
 * until its batch is written: the garbage collector would copy every piece of it, at every collection meanwhile (a
 * simulation of the gateway's allocation: 18 µs a request against 10 with the text flattened). Reading a character of
 * it makes V8 flatten it now, once, as binding it to the insert would later.
 */
function flattened(text: string): string {
  if (text.charCodeAt(0) !== 123) throw new Error('a request log row\'s rest must be a JSON object');
  return text;
}

/** The pieces both logs share, each serialized once. */
function shared(ctx: RequestContext, res: ServerResponse, now: number) {
  const latency = performance.now() - ctx.started;
  const charge = ctx.charge;
  return {
    latency, latencyMs: r2(latency), status: ctx.logStatus ?? res.statusCode,
    path: j(bounded(pathOf(ctx.url))), model: ctx.model === undefined ? undefined : bounded(ctx.model),
    attempts: ctx.attempts.length ? `[${ctx.attempts.map(flatJson).join(',')}]` : '[]',
    reason: ctx.reason === undefined ? undefined : j(bounded(ctx.reason, 512)),
    usage: ctx.usage ? flatJson(usageSummary(ctx.usage, charge?.classes)) : undefined,
    lines: charge ? chargeLines(charge.lines) : undefined,
    price: charge?.chose === undefined ? undefined : j(charge.chose),
    now,
  };
}
type Shared = ReturnType<typeof shared>;

export function finishedRequest(ctx: RequestContext, res: ServerResponse, wantLine: boolean, wantRow: boolean): Finished {
  const s = shared(ctx, res, Date.now());
  return { line: wantLine ? accessLine(ctx, res, s) : undefined, row: wantRow ? row(ctx, res, s) : undefined };
}

/** An optional field of the line: left out when absent, as JSON.stringify leaves out undefined. */
const opt = (key: string, v: unknown) => (v === undefined ? '' : `,"${key}":${typeof v === 'number' ? num(v) : j(v)}`);
/** The same for a string from a small set. */
const optQuoted = (key: string, v: string | undefined) => (v === undefined ? '' : `,"${key}":${quoted(v)}`);

/**
 * The access line: pino's level, time, pid and msg around ids, numbers and bounded strings (never a header or a key).
 * The billed counts and their classes, never the vendor's nested details: the line never grows with what it sends.
 */
function accessLine(ctx: RequestContext, res: ServerResponse, s: Shared): string {
  let line = `{"level":30,"time":${num(s.now)},"pid":${process.pid},"req_id":${j(ctx.id)}${optQuoted('route', ctx.route?.id)},"method":${quoted(ctx.method)},"path":${s.path}`
    + `${optQuoted('token_id', ctx.token?.id)}${opt('model', s.model)}${optQuoted('channel', ctx.channel)}${ctx.attempts.length ? `,"attempts":${s.attempts}` : ''}`
    + `,"status":${num(s.status)}${opt('error_code', ctx.errorCode)}${opt('clamped', ctx.clamped)}${s.reason === undefined ? '' : `,"reason":${s.reason}`}`
    + `${opt('outcome', ctx.outcome)},"latency_ms":${num(s.latencyMs)}${ctx.addedMs === undefined ? '' : `,"added_ms":${num(Math.round(ctx.addedMs * 1000) / 1000)}`}`
    + `${s.usage === undefined ? '' : `,"usage":${s.usage}`}${ctx.usageEstimated ? ',"usage_estimated":true' : ''}`
    + `${opt('reserved', ctx.reserved)}${opt('charged', ctx.charged)}${opt('uncharged', ctx.uncharged)}`
    // What the charge is made of: `[item, quantity, rate, units]` per line, the prompt tier and the chosen options.
    + `${s.lines ? `,"charge_lines":${s.lines.line}` : ''}${opt('tier', ctx.charge?.tier)}${s.price === undefined ? '' : `,"price":${s.price}`}`
    + `${res.writableFinished ? '' : ',"aborted":true'}`;
  const dropped = droppedFields(ctx);
  if (dropped) for (const k in dropped) line += `,"${k}":${j(dropped[k])}`;
  return `${line},"msg":"request"}\n`;
}

/**
 * The row: the columns a search filters on, then the rest of the record as JSON in the record's order, a column's
 * field in it only when null (so the record reads back as written).
 */
function row(ctx: RequestContext, res: ServerResponse, s: Shared): Row {
  const t = ctx.token;
  const route = ctx.route?.id;
  const nul = (v: unknown, key: string) => (v === undefined || v === null ? `,"${key}":null` : '');
  const rest = `{"started_at":${num(Math.round(s.now - s.latency))}${nul(t?.id, 'token')}${nul(t?.user, 'user')}${nul(t?.group, 'group')}${nul(route, 'route')}`
    + `,"method":${quoted(ctx.method)},"path":${s.path}${nul(s.model, 'model')},"served_model":${orNull(ctx.responseModel)}${nul(ctx.channel, 'channel')}`
    + `,"attempts":${s.attempts}${nul(s.status, 'status')}${nul(ctx.errorCode, 'error_code')},"outcome":${orNull(ctx.outcome)},"reason":${s.reason ?? 'null'}`
    + `,"usage":${s.usage ?? 'null'},"usage_estimated":${orNull(ctx.usageEstimated)},"units":${orNull(ctx.units)}${nul(ctx.task, 'task')}`
    + `,"reserved":${orNull(ctx.reserved)},"charged":${orNull(ctx.charged)},"uncharged":${orNull(ctx.uncharged)},"vendor_charged":null`
    + `,"charge_lines":${s.lines ? s.lines.row : '[]'},"tier":${orNull(ctx.charge?.tier)},"price":${s.price ?? 'null'}`
    + `,"latency_ms":${num(s.latencyMs)},"first_byte_ms":${ctx.firstByteMs === undefined ? 'null' : num(r2(ctx.firstByteMs))}`
    + `,"client":${orNull(res.req?.socket?.remoteAddress)}}`;
  return [columnText(ctx.id), 'request', s.now, columnText(t?.id), columnText(t?.user), columnText(t?.group), columnText(route),
    columnText(s.model), columnText(ctx.channel), s.status ?? null, columnText(ctx.errorCode), columnText(ctx.task), flattened(rest)];
}
