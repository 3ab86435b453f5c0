// POST /console/api/invite {code, password}: a user takes the operator's invite and sets a console password. The
// password is checked and hashed before the invite is used up, so a refused password leaves the invite good; an
// unknown code (or one a newer invite voided) is 404, a used one 409, an expired one 410, and none names the user.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import { hashPassword, passwordProblem } from '../accounts/passwords.js';
import { gate, readSignedOut } from './sign-in-api.js';

const refusals = { unknown: 'invite_not_found', used: 'invite_used', expired: 'invite_expired' } as const;

export async function acceptInvite(ex: Exchange, m: Matched): Promise<void> {
  const { accounts } = ex.g;
  const { code, password } = (await readSignedOut(ex, m)) as { code: string; password: string };
  const problem = passwordProblem(password);
  if (problem) throw new GatewayError('invalid_request', `\`password\` ${problem}`);
  const attempt = await gate(ex);
  const hashed = await hashPassword(password);
  const r = await accounts.invites.redeem(code);
  const user = 'user' in r ? await accounts.users.get(r.user) : undefined;
  if (!user) throw new GatewayError('refused' in r ? refusals[r.refused] : 'invite_not_found');
  await accounts.credentials.set(user.id, hashed);
  await accounts.signIns.forgive(attempt);
  sendJson(ex.res, 200, { object: 'invite.accepted', user: { id: user.id, name: user.name } });
}
