// /admin/teams: create, list, read and change teams (budget, period, member cap), add and remove members, through
// the same TeamAdmin as `switchyard team …`. {id} is a team's id or name, {user} a user's.
import { sendJson } from '../http/send-json.js';
import { queryOf } from '../pipeline/match-route.js';
import { readJson } from '../pipeline/read-request.js';
import type { Exchange, Matched } from '../pipeline/exchange.js';
import type { TeamInput } from './team-admin.js';
import { listPage } from './list-page.js';
import { refused } from './admin-refusal.js';
import { teamAdmin } from './gateway-admins.js';

export async function createTeam(ex: Exchange, m: Matched): Promise<void> {
  const body = (await readJson(ex, m.route)) as unknown as TeamInput;
  sendJson(ex.res, 201, await refused(() => teamAdmin(ex.g).create(body)));
}

/** Paged by `limit` (1-1000, default 100) and `after` (a team id), oldest first. */
export async function listTeams(ex: Exchange): Promise<void> {
  sendJson(ex.res, 200, listPage(await teamAdmin(ex.g).list(), queryOf(ex.ctx.url), { defaultLimit: 100, maxLimit: 1000 }));
}

export async function getTeam(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, await refused(() => teamAdmin(ex.g).get(m.params.id)));
}

export async function updateTeam(ex: Exchange, m: Matched): Promise<void> {
  const change = (await readJson(ex, m.route)) as Partial<TeamInput>;
  sendJson(ex.res, 200, await refused(() => teamAdmin(ex.g).update(m.params.id, change)));
}

/** `{user}`: a user in no team joins; one already in this team changes nothing; one in another is a conflict (409). */
export async function addMember(ex: Exchange, m: Matched): Promise<void> {
  const { user } = (await readJson(ex, m.route)) as { user: string };
  sendJson(ex.res, 200, await refused(() => teamAdmin(ex.g).add(m.params.id, user)));
}

/** A user who is not a member is a conflict (409): nothing to remove. */
export async function removeMember(ex: Exchange, m: Matched): Promise<void> {
  sendJson(ex.res, 200, await refused(() => teamAdmin(ex.g).remove(m.params.id, m.params.user)));
}
