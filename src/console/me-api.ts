// GET /console/api/me: the signed-in user's own page: who they are, their wallet, their team's budget for the period
// (and their cap in it), the models a token of theirs may be allowed, and the session's CSRF token, which the page
// sends back in X-CSRF-Token (no other site can read this answer: no CORS header allows it).
import { sendJson } from '../http/send-json.js';
import type { Exchange, Member } from '../pipeline/exchange.js';
import { UserAdmin } from '../admin/user-admin.js';
import { TeamAdmin } from '../admin/team-admin.js';
import { groupModels } from '../admin/token-admin.js';

export async function serveMe(ex: Exchange, m: Member): Promise<void> {
  const { g } = ex;
  const users = new UserAdmin(g.store, g.accounts, () => g.runtime);
  const team = m.user.team ? await g.accounts.teams.get(m.user.team) : undefined;
  const { object: _, ...me } = await users.view(m.user);
  sendJson(ex.res, 200, {
    object: 'me', ...me,
    team: team ? await new TeamAdmin(g.store, g.accounts, users).memberView(team, m.user) : null,
    models: groupModels(g.runtime, m.user.group),
    csrf_token: m.session.csrf,
    session_expires_at: Math.floor(m.session.expires_at / 1000),
  }, { 'cache-control': 'no-store' });
}
