// Media vendor registry for server.ts: routes (Midjourney, Suno, Jimeng, OpenAI images, Gemini), vendor-shaped fault bodies and fault keys.
import type { IncomingMessage } from 'node:http';
import type { Fault } from '../control.js';
import type { Route } from '../http.js';
import { type VendorError, query, route } from '../video/common.js';
import { arkAssetRoutes } from '../video/ark-assets.js';
import { mediaFileRoutes } from './files.js';
import { geminiError, geminiRoutes, googleKey } from './gemini.js';
import { JIMENG_ACTIONS, jimeng, jimengError, volcMetaError } from './jimeng.js';
import { isMidjourneyPath, midjourneyRoutes, springError } from './midjourney.js';
import { openaiImageRoutes } from './openai-images.js';
import { sunoError, sunoRoutes } from './suno.js';
import { volcAccessKey } from './volc-sign.js';

const actionOf = (req: IncomingMessage): string => new URL(req.url ?? '/', 'http://sim').searchParams.get('Action') ?? '';

/**
 * Jimeng and Ark Assets share Volcengine's `POST /?Action=…` shape; the Action decides, and a V4-signed request
 * (the visual API's auth; Ark takes a Bearer key) goes to the visual API whatever its Action, which answers an
 * unknown one as Volcengine does. This route must come before the video routes so Ark Assets is reached through it.
 */
const v4Signed = (req: IncomingMessage) => String(req.headers.authorization ?? '').startsWith('HMAC-SHA256');
const volcRoot = route('POST', '/', (ctx) => (JIMENG_ACTIONS.includes(query(ctx, 'Action') ?? '') || v4Signed(ctx.req) ? jimeng(ctx) : arkAssetRoutes[0].handle(ctx)));

export const mediaRoutes: Route[] = [...midjourneyRoutes, ...sunoRoutes, ...openaiImageRoutes, ...geminiRoutes, ...mediaFileRoutes, volcRoot];

function vendorErrorFor(req: IncomingMessage, path: string): ((status: number) => VendorError) | undefined {
  if (isMidjourneyPath(path)) return (s) => springError(s, path);
  if (path.startsWith('/suno/')) return (s) => sunoError(s);
  if (path.startsWith('/v1beta/')) return geminiError;
  const action = actionOf(req);
  if (path === '/' && JIMENG_ACTIONS.includes(action)) {
    // Auth-type faults come from Volcengine's gateway (ResponseMetadata); the rest from the visual service (code/message).
    return (s) => (s === 401 || s === 403 ? { body: volcMetaError(action, s === 401 ? 'InvalidAuthorization' : 'AccessDenied', `Simulated error (HTTP ${s}).`) } : jimengError(s));
  }
  return undefined;
}

/** A fault without its own body gets the media vendor's error body; other paths pass through unchanged. */
export function withMediaFaultBody(req: IncomingMessage, path: string, fault: Fault): Fault {
  const errorFor = vendorErrorFor(req, path);
  if (fault.body !== undefined || fault.status === 0 || !errorFor) return fault;
  const e = errorFor(fault.status);
  return { ...fault, body: e.body, headers: { ...e.headers, ...fault.headers } };
}

/** Credentials the generic helper cannot read: `mj-api-secret`, Google's key (header or `?key=`), a Volcengine AK. */
export function mediaFaultKey(req: IncomingMessage, path: string): string | undefined {
  if (isMidjourneyPath(path)) {
    const secret = req.headers['mj-api-secret'];
    return typeof secret === 'string' ? secret : undefined;
  }
  if (path.startsWith('/v1beta/')) return googleKey({ req });
  if (path === '/') return volcAccessKey(req.headers.authorization);
  return undefined;
}

export { MediaControl, serveMediaControl } from './control.js';
export type { MediaTaskInfo, SunoFetchStats } from './control.js';
export type { CallbackRecord, ImageRequestRecord, SignatureRecord } from './store.js';
export { VOLC_KEYS, signVolcV4, verifyVolcV4 } from './volc-sign.js';
export { pngBytes, pngDimensions } from './png.js';
