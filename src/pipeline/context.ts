// Per-request state that stages fill in and the access log reads at the end.
import { randomBytes } from 'node:crypto';
import type { CompiledRoute } from '../config/runtime.js';
import type { TokenRecord } from '../store/token-store.js';
import { Abort } from '../http/abort.js';
import type { RequestTrace } from '../tracing/tracing.js';
import type { Charge } from '../billing/price.js';
import type { Usage } from '../transform/usage.js';


export interface AttemptLog { channel: string; status?: number; error?: string; ms: number }
export interface RequestContext {
  id: string;
  started: number; // performance.now()
  method: string;
  url: string;
  route?: CompiledRoute;
  params: Record<string, string>;
  token?: TokenRecord;
  model?: string;
  channel?: string;
  attempts: AttemptLog[];
  usage?: Usage;
  usageEstimated?: boolean;
  reserved?: number;
  /** The task a submit reserved for (its id), accepted by the vendor or not. */
  task?: string;
  charged?: number;
  /** Usage beyond the reservation that was not charged (the charge is capped at the reservation). */
  uncharged?: number;
  /** What the charge is made of: its lines, the prompt-size tier, the request fields that chose the price. */
  charge?: Charge;
  errorCode?: string;
  /** Completion limits lowered to the model's maximum, as sent in `x-switchyard-clamped`. */
  clamped?: string;
  /** Why the gateway refused or cut the request, with the setting that changes it (GatewayError.reason). */
  reason?: string;
  /** What a translation left out, by kind (`_dropped` of a dialect's request transform): the access line's `dropped_<kind>`. */
  dropped?: Record<string, string[]>;
  outcome?: string; // how a stream ended: done, client_gone, upstream_cut, upstream_error, idle_timeout
  /** Time spent waiting on upstreams (attempts up to their headers, non-streamed bodies), in ms. */
  upstreamMs: number;
  /** Gateway time before the response head, as sent in `x-switchyard-added-ms`. */
  addedMs?: number;
  /** From arrival to the response head (ms), where an answer's head carried `x-switchyard-added-ms`. */
  firstByteMs?: number;
  /** What the request is priced per besides tokens (seconds of media, images, calls), as its reservation recorded. */
  units?: number;
  /**
   * Aborts when the request must stop: the client went away (reason `client_gone`) or a stop's deadline cut it
   * (`shutdown`). Every await on the client or an upstream listens to it, so none outlives its request.
   */
  abort: Abort;
  /** Undone at the end of the request whatever happened (memory budget, spooled files). */
  cleanup: (() => void)[];
  /** The status logged and counted when it differs from the one sent (499 client gone, 502 body cut). */
  logStatus?: number;
  /** Its place among the requests in flight (InFlight), -1 when not there. */
  slot: number;
  /** Its spans, when tracing is on (src/tracing/); undefined otherwise, and then nothing traces. */
  trace: RequestTrace | undefined;
  /** The model the vendor's answer names (its `model` field), where the gateway reads the answer anyway. */
  responseModel: string | undefined;
}

let counter = 0;
const prefix = randomBytes(4).toString('hex');

/** Request ids are unique per process start plus a counter: cheap and never reused. */
export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `req_${prefix}${Date.now().toString(36)}${counter.toString(36)}`;
}

/** Every field is present from the start, so every context has one shape however a request goes (fast property access). */
export function newContext(method: string, url: string): RequestContext {
  return {
    id: newRequestId(), started: performance.now(), method, url, route: undefined, params: {}, token: undefined, model: undefined,
    channel: undefined, attempts: [], usage: undefined, usageEstimated: undefined, reserved: undefined, task: undefined, charged: undefined,
    uncharged: undefined, charge: undefined, errorCode: undefined, clamped: undefined, reason: undefined, dropped: undefined, outcome: undefined, upstreamMs: 0, addedMs: undefined, firstByteMs: undefined, units: undefined, abort: new Abort(), cleanup: [],
    logStatus: undefined, slot: -1, trace: undefined, responseModel: undefined,
  };
}

/** A vendor answer's `model`, when it is a short string. */
export function answerModel(answer: unknown): string | undefined {
  const m = (answer as { model?: unknown } | null)?.model;
  return typeof m === 'string' && m.length <= 200 ? m : undefined;
}

/** The gateway's own share of the time so far: the `x-switchyard-added-ms` header and the metric. */
export function addedMs(ctx: RequestContext): number {
  ctx.firstByteMs = performance.now() - ctx.started;
  ctx.addedMs = Math.max(0, ctx.firstByteMs - ctx.upstreamMs);
  return ctx.addedMs;
}
