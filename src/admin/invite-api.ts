// POST /admin/users/{id}/invite: a one-time link for the user to set a console password, through the same UserAdmin
// as `switchyard user invite`. The link is built on the origin the operator reached the gateway by; its code is
// answered this once (only its hash is kept).
import { sendJson } from '../http/send-json.js';
import { baseUrlOf } from '../http/base-url.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import { inviteLink } from '../accounts/invites.js';
import { UserAdmin } from './user-admin.js';
import { refused as admin } from './admin-refusal.js';

export async function inviteUser(ex: Exchange, m: Matched): Promise<void> {
  const { g } = ex;
  const users = new UserAdmin(g.store, g.accounts, () => g.runtime, (r) => g.requestLog?.add(r));
  const { user, code, expires_at } = await admin(() => users.invite(m.params.id));
  sendJson(ex.res, 201, {
    object: 'invite', user: { id: user.id, name: user.name }, url: inviteLink(baseUrlOf(ex.req), code),
    expires_at: Math.floor(expires_at / 1000),
  });
}
