// Upstream auth schemes: how a channel's credentials are attached to an outgoing request, one scheme per file.
import type { Auth } from '../../types/generated/channels.js';
import { bearer } from './bearer.js';
import { header } from './header.js';
import { jwtHs256 } from './jwt-hs256.js';
import { hmacV4 } from './hmac-v4.js';

export { mintedSecrets } from './jwt-hs256.js';

/** The request as the schemes see it: `path` is the request target (path and query); headers are lower-case and mutable. */
export interface Outgoing { method: string; host: string; path: string; headers: Record<string, string>; body?: Buffer }

/** Adds the channel's credentials to the outgoing headers; returns the path to send. */
export function applyAuth(auth: Auth, out: Outgoing): string {
  switch (auth.scheme) {
    case 'bearer': bearer(auth, out); break;
    case 'header': header(auth, out); break;
    case 'jwt_hs256': jwtHs256(auth, out); break;
    case 'hmac_v4': hmacV4(auth, out); break;
    case 'none': break;
  }
  return out.path;
}
