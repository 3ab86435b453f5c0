// Video vendor registry for server.ts: the route list, vendor-shaped bodies for scripted faults, and fault keys for Token/JWT auth.
import type { IncomingMessage } from 'node:http';
import type { Fault } from '../control.js';
import type { Route } from '../http.js';
import { arkAssetsError } from './ark-assets.js';
import { arkError, arkRoutes } from './ark.js';
import type { VendorError } from './common.js';
import { dashscopeError, dashscopeRoutes } from './dashscope.js';
import { fileRoutes } from './files.js';
import { jwtIssuer } from './kling-jwt.js';
import { klingError, klingRoutes } from './kling.js';
import { minimaxError, minimaxRoutes } from './minimax.js';
import { soraRoutes } from './sora.js';
import { unifiedRoutes } from './unified.js';
import { viduError, viduRoutes } from './vidu.js';

/**
 * Kling before Sora: both live under /v1/videos and Kling's family paths are the more specific ones. Ark Assets
 * (`POST /`) is reached through the media registry's Volcengine dispatcher, which routes by credential scope.
 */
export const videoRoutes: Route[] = [
  ...viduRoutes, ...klingRoutes, ...soraRoutes, ...arkRoutes,
  ...dashscopeRoutes, ...minimaxRoutes, ...unifiedRoutes, ...fileRoutes,
];

/** Which vendor error shape a path speaks; undefined = OpenAI-shaped (Sora, unified, chat). */
function vendorErrorFor(path: string): ((status: number) => VendorError) | undefined {
  if (path.startsWith('/ent/v2/')) return viduError;
  if (/^\/v1\/videos\/(text2video|image2video)(\/|$)/.test(path)) return klingError;
  if (path.startsWith('/api/v3/')) return arkError;
  if (path.startsWith('/api/v1/')) return dashscopeError;
  if (/^\/v1\/(video_generation|query\/video_generation|files\/retrieve)$/.test(path)) return minimaxError;
  if (path === '/') return arkAssetsError;
  return undefined;
}

/** A fault without its own body gets the vendor's error body for its status, so clients parse it as they would the real one. */
export function withVendorFaultBody(path: string, fault: Fault): Fault {
  const errorFor = vendorErrorFor(path);
  if (fault.body !== undefined || fault.status === 0 || !errorFor) return fault;
  const e = errorFor(fault.status);
  return { ...fault, body: e.body, headers: { ...e.headers, ...fault.headers } };
}

/**
 * The credential scripted faults are matched against, for schemes the generic helper cannot read:
 * Vidu's `Token <key>` → the key; a Kling JWT → its `iss` (the access key), since the token changes per request.
 */
export function videoFaultKey(req: IncomingMessage, path: string): string | undefined {
  const auth = req.headers.authorization ?? '';
  const token = /^Token\s+(.+)$/.exec(auth);
  if (token) return token[1].trim();
  // Only on Kling paths: other vendors' keys may be JWT-shaped too (MiniMax) and must match as-is.
  const bearer = vendorErrorFor(path) === klingError ? /^Bearer\s+(\S+\.\S+\.\S+)$/.exec(auth.trim()) : null;
  return bearer ? jwtIssuer(bearer[1]) : undefined;
}

export { VideoControl, serveVideoControl } from './control.js';
export { expectedFileBytes } from './files.js';
export { KLING_KEYS, signKlingJwt } from './kling-jwt.js';
