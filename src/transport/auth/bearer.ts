// `bearer`: Authorization: Bearer <key>.
import type { Auth } from '../../types/generated/channels.js';
import type { Outgoing } from './outgoing.js';

export function bearer(auth: Auth, out: Outgoing): void {
  out.headers.authorization = `Bearer ${auth.key ?? ''}`;
}
