// Media vendor registry for server.ts: routes (Midjourney, Suno, Jimeng, OpenAI images, Gemini), vendor-shaped fault bodies and fault keys.
import type { IncomingMessage } from 'node:http';
import type { Fault } from '../control.js';
import type { Route } from '../http.js';
import { type VendorError, route } from '../video/common.js';
import { arkAssets } from '../video/ark-assets.js';
import { mediaFileRoutes } from './files.js';
import { geminiError, geminiRoutes, googleKey } from './gemini.js';
import { JIMENG_ACTIONS, jimeng, jimengError, volcMetaError } from './jimeng.js';
import { isMidjourneyPath, midjourneyRoutes, springError } from './midjourney.js';
import { openaiImageRoutes } from './openai-images.js';
import { sunoError, sunoRoutes } from './suno.js';
import { volcAccessKey, volcScope } from './volc-sign.js';

const actionOf = (req: IncomingMessage): string => new URL(req.url ?? '/', 'http://sim').searchParams.get('Action') ?? '';

/**
 * Jimeng and Ark Assets share Volcengine's `POST /?Action=…` shape, as their real hosts do (visual.volcengineapi.com,
 * open.volcengineapi.com). Volcengine routes a signed request by its credential scope's service: `cv` goes to the
 * visual API and `ark` to Ark's OpenAPI (the assets), whatever the Action, and each answers an unknown Action itself.
 * An unsigned request (or one for another service) goes by its Action and is refused there with 401. This route must
 * come before the video routes so Ark Assets is reached through it.
 */
function volcService(req: IncomingMessage): 'cv' | 'ark' {
  const service = volcScope(req.headers.authorization)?.service;
  if (service === 'cv' || service === 'ark') return service;
  return JIMENG_ACTIONS.includes(actionOf(req)) ? 'cv' : 'ark';
}
const volcRoot = route('POST', '/', (ctx) => (volcService(ctx.req) === 'cv' ? jimeng(ctx) : arkAssets(ctx)));

export const mediaRoutes: Route[] = [...midjourneyRoutes, ...sunoRoutes, ...openaiImageRoutes, ...geminiRoutes, ...mediaFileRoutes, volcRoot];

function vendorErrorFor(req: IncomingMessage, path: string): ((status: number) => VendorError) | undefined {
  if (isMidjourneyPath(path)) return (s) => springError(s, path);
  if (path.startsWith('/suno/')) return (s) => sunoError(s);
  if (path.startsWith('/v1beta/')) return geminiError;
  const action = actionOf(req);
  if (path === '/' && volcService(req) === 'cv') {
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
export { ARK_SCOPE, VISUAL_SCOPE, VOLC_KEYS, signVolcV4, verifyVolcV4 } from './volc-sign.js';
export type { VolcScope } from './volc-sign.js';
export { pngBytes, pngDimensions } from './png.js';
