// Policy `account` (routes.yaml): the console's users. Signing in and taking an invite are open to anyone (their own
// checks bound them); everything else is a signed-in user's own, behind the session stage (src/pipeline/).
import type { MemberPolicy, OpenPolicy, Policy } from '../pipeline/policy.js';
import { readBody } from '../http/read-body.js';
import { signIn, signOut } from './sign-in-api.js';
import { acceptInvite } from './invite-api.js';
import { serveMe } from './me-api.js';
import { createMyToken, listMyTokens, revokeMyToken, rotateMyToken } from './my-tokens-api.js';
import { serveMyRequest, serveMyRequests, serveMyUsage } from './my-records-api.js';

const open: Record<string, OpenPolicy> = { sign_in: signIn, invite_accept: acceptInvite };

const actions: Record<string, MemberPolicy> = {
  sign_out: signOut, me: serveMe, my_tokens: listMyTokens, my_token_create: createMyToken, my_token_revoke: revokeMyToken,
  my_token_rotate: rotateMyToken, my_usage: serveMyUsage, my_requests: serveMyRequests, my_request: serveMyRequest,
};

/** A call that takes no body still reads one a client sent, within the route's bounds (413 past them), as the admin API does. */
const bounded = (action: MemberPolicy): MemberPolicy => async (ex, m) => {
  if (!m.route.validate && ex.req.method !== 'GET') await readBody(ex.req, ex.g.bodyLimits(ex.ctx, m.route.limits.maxBodyBytes));
  return action(ex, m);
};

const member: Record<string, MemberPolicy> = Object.fromEntries(Object.entries(actions).map(([k, a]) => [k, bounded(a)]));

export function accountPolicy(action: string | undefined): Policy {
  const a = action ?? '';
  return open[a] ? { kind: 'open', answer: open[a] } : { kind: 'member', answer: member[a] };
}
