// Shared plumbing for the video vendors: JSON parsing, task directives, own-host URLs, route matching, submit failures.
import type { IncomingMessage } from 'node:http';
import { type Directives, flagDirective, intDirective, parseDirectives } from '../directives.js';
import { type Ctx, type Route, sendJson, sleep } from '../http.js';
import { type NewTask, type VideoTask, storeOf } from './task-store.js';

export type Json = Record<string, unknown>;

export const DEFAULT_SIZE_BYTES = 65536;
export const DEFAULT_POLLS = 2;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The body as a JSON object, or undefined for bad JSON or a non-object. */
export function parseJson(raw: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * How an image field holds its image, as the vendors tell the forms apart: an http(s) URL, a base64 `data:image/…`
 * URI, bare base64, an `asset://` reference; undefined for anything else (an object, an empty string, a local path).
 * Each vendor takes some of these forms and refuses the others (imageRefused).
 */
export type ImageForm = 'url' | 'data_uri' | 'base64' | 'asset';

export function imageForm(v: unknown): ImageForm | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  if (/^https?:\/\/\S+$/i.test(v)) return 'url';
  if (/^asset:\/\/\S+$/.test(v)) return 'asset';
  const uri = /^data:image\/[\w.+-]+;base64,(.*)$/s.exec(v);
  if (uri) return isBase64(uri[1]) ? 'data_uri' : undefined;
  return isBase64(v) ? 'base64' : undefined;
}

const isBase64 = (s: string) => s.length > 0 && s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s);

/** Why the vendor refuses this image value (`field` named), or undefined when it takes one of `forms`. */
export function imageRefused(field: string, v: unknown, forms: readonly ImageForm[]): string | undefined {
  const form = imageForm(v);
  if (form && forms.includes(form)) return undefined;
  const names: Record<ImageForm, string> = { url: 'an http(s) URL', data_uri: 'a base64 data URI', base64: 'base64 without the data: prefix', asset: 'an asset:// reference' };
  return `${field} must be ${forms.map((f) => names[f]).join(' or ')}`;
}

/** Everything the `[sim …]` directives decide for one submit. */
export interface TaskPlan {
  directives: Directives;
  pollsBeforeDone: number;
  fail: boolean;
  failReason?: string;
  sizeBytes: number;
  urlTtlMs?: number;
  /** `submit_status=N`: 0 drops the socket, 400–599 makes the submit fail with the vendor's error body. */
  submitStatus?: number;
  /** `business_error=1|CODE` (Kling, MiniMax): HTTP 200 with a non-zero business code. */
  businessError?: number;
  /** `submit_delay_ms=N`: the task is stored first, then the submit answer waits N ms. */
  submitDelayMs?: number;
}

export function planFrom(text: string): TaskPlan {
  const d = parseDirectives(text);
  const status = intDirective(d, 'submit_status');
  const business = d.business_error === undefined ? undefined : flagDirective(d, 'business_error') ? 1 : intDirective(d, 'business_error');
  return {
    directives: d,
    pollsBeforeDone: intDirective(d, 'polls', DEFAULT_POLLS),
    fail: flagDirective(d, 'fail'),
    failReason: d.fail_reason,
    sizeBytes: intDirective(d, 'size_bytes', DEFAULT_SIZE_BYTES),
    urlTtlMs: intDirective(d, 'url_ttl_ms'),
    submitStatus: status === 0 || (status !== undefined && status >= 400 && status <= 599) ? status : undefined,
    businessError: business && business > 0 ? business : undefined,
    submitDelayMs: intDirective(d, 'submit_delay_ms'),
  };
}

/**
 * Handles `submit_status`: returns true when the submit was answered (or dropped) instead of accepted.
 * `errorFor` builds the vendor's own error body and optional extra headers for that status.
 */
export function submitFailure(ctx: Ctx, plan: TaskPlan, errorFor: (status: number) => VendorError): boolean {
  if (plan.submitStatus === undefined) return false;
  if (plan.submitStatus === 0) {
    ctx.req.socket.destroy();
    return true;
  }
  const e = errorFor(plan.submitStatus);
  sendJson(ctx.res, plan.submitStatus, e.body, e.headers);
  return true;
}

/**
 * `submit_delay_ms`: call once the task is stored, before answering. False = the caller left during the wait; the task
 * stays anyway, which is the point (a gateway that dies while the vendor answers must still find its task).
 */
export function submitDelay(ctx: Ctx, plan: TaskPlan): Promise<boolean> {
  return sleep(plan.submitDelayMs ?? 0, ctx.signal);
}

export interface VendorError {
  body: unknown;
  headers?: Record<string, string>;
}

/** 429s carry retry-after like the real gateways do, so clients' back-off paths get exercised. */
export function retryHeaders(status: number): Record<string, string> | undefined {
  return status === 429 ? { 'retry-after': '1' } : undefined;
}

export function newTask(ctx: Ctx, plan: TaskPlan, t: Omit<NewTask, 'pollsBeforeDone' | 'fail' | 'failReason' | 'sizeBytes' | 'urlTtlMs'>): VideoTask {
  return storeOf(ctx.control).create({
    ...t,
    pollsBeforeDone: plan.pollsBeforeDone,
    fail: plan.fail,
    failReason: plan.failReason,
    sizeBytes: plan.sizeBytes,
    urlTtlMs: plan.urlTtlMs,
  });
}

/** Result URLs point back at whatever host the client used, so they work behind any port or proxy. */
export function ownUrl(req: IncomingMessage, path: string): string {
  const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
  return `http://${host}${path}`;
}

export function fileUrl(req: IncomingMessage, task: VideoTask): string {
  return ownUrl(req, `/files/${task.fileName}`);
}

export function route(method: string, path: string | RegExp, handle: (ctx: Ctx) => Promise<void> | void): Route {
  return { method, path, handle: async (ctx) => handle(ctx) };
}

/** Capture groups of a path regex the router already matched (decoded). */
export function pathParams(ctx: Ctx, re: RegExp): string[] {
  const m = re.exec(ctx.path);
  return m ? m.slice(1).map((s) => decodeURIComponent(s)) : [];
}

export function query(ctx: Ctx, name: string): string | null {
  return new URL(ctx.req.url ?? '/', 'http://sim').searchParams.get(name);
}

export function bearer(ctx: Ctx): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(ctx.req.headers.authorization ?? '');
  return m ? m[1].trim() : undefined;
}

export function unixSeconds(ms = Date.now()): number {
  return Math.floor(ms / 1000);
}
