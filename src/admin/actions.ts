// The admin API's actions (routes.yaml `policy: admin`, `action: …`), each answered by its own file.
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/send-json.js';
import { readBody } from '../http/read-body.js';
import type { AdminPolicy } from '../pipeline/policy.js';
import { createToken, getToken, listTokens, revokeToken, topupToken, updateToken } from './tokens-api.js';
import { createUser, getUser, listUsers, topupUser, updateUser, userTokens } from './users-api.js';
import { addMember, createTeam, getTeam, listTeams, removeMember, updateTeam } from './teams-api.js';
import { teamUsage, userUsage } from './account-usage-api.js';
import { serveUsage } from './usage-api.js';
import { serveTasks } from './tasks-api.js';
import { serveReconciliation } from './reconciliation-api.js';
import { exportRequests, serveRequest, serveRequests } from './requests-api.js';
import { serveChannels } from './channels-api.js';
import { inviteUser } from './invite-api.js';

/** POST /admin/reload: this instance loads its config again (others reload on their own file watch or SIGHUP). */
const reload: AdminPolicy = async (ex) => {
  const r = ex.g.reload();
  if (!r.ok) throw new GatewayError('invalid_request', `The config was refused; the running one is kept: ${(r.errors ?? '').slice(0, 2000)}`);
  sendJson(ex.res, 200, { object: 'reload', ok: true, config: r.hash, instance: ex.g.store.instance });
};

const actions: Record<string, AdminPolicy> = {
  token_create: createToken, token_list: listTokens, token_get: getToken, token_update: updateToken, token_topup: topupToken,
  token_revoke: revokeToken,
  user_create: createUser, user_list: listUsers, user_get: getUser, user_update: updateUser, user_topup: topupUser, user_tokens: userTokens, user_usage: userUsage, user_invite: inviteUser,
  team_create: createTeam, team_list: listTeams, team_get: getTeam, team_update: updateTeam, team_member_add: addMember, team_member_remove: removeMember, team_usage: teamUsage,
  usage: serveUsage, tasks: serveTasks, reconciliation: serveReconciliation, requests: serveRequests, request: serveRequest, requests_export: exportRequests, channels: serveChannels, reload,
};

/** An action that takes no body still reads one a client sent, within the route's bounds (413 past them). */
const boundedBody = (action: AdminPolicy): AdminPolicy => async (ex, m) => {
  if (!m.route.validate && ex.req.method !== 'GET') await readBody(ex.req, ex.g.bodyLimits(ex.ctx, m.route.limits.maxBodyBytes));
  return action(ex, m);
};

export const adminActions: Record<string, AdminPolicy> = Object.fromEntries(Object.entries(actions).map(([k, a]) => [k, boundedBody(a)]));
