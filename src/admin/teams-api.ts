// GET /admin/teams: every team with its budget for the current period (used, budget, when it resets) and its
// members' use, as the console's budget bars show them; through the same TeamAdmin as `switchyard team list`.
import { sendJson } from '../http/send-json.js';
import type { Exchange } from '../pipeline/exchange.js';
import { TeamAdmin } from './team-admin.js';
import { UserAdmin } from './user-admin.js';

export async function listTeams(ex: Exchange): Promise<void> {
  const { g } = ex;
  const teams = new TeamAdmin(g.store, g.accounts, new UserAdmin(g.store, g.accounts, () => g.runtime));
  sendJson(ex.res, 200, { object: 'list', data: await teams.list() });
}
