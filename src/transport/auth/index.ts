// Upstream auth schemes: how a channel's credentials are attached to an outgoing request, one scheme per file.
import type { Auth } from '../../types/generated/channels.js';
import { bearer } from './bearer.js';
import { header } from './header.js';
import { jwtHs256 } from './jwt-hs256.js';
import { hmacV4 } from './hmac-v4.js';
import type { Outgoing } from './outgoing.js';

export { mintedSecrets } from './jwt-hs256.js';
export type { Outgoing } from './outgoing.js';


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
