// `header`: <header>: <prefix><key>, e.g. `Authorization: Token <key>` or `x-goog-api-key: <key>`.
import type { Auth } from '../../types/generated/channels.js';
import type { Outgoing } from './outgoing.js';

export function header(auth: Auth, out: Outgoing): void {
  out.headers[auth.header!.toLowerCase()] = `${auth.prefix ?? ''}${auth.key ?? ''}`;
}
