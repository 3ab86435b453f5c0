/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/teams/{id}/members: a user joins the team. A user is in at most one team: one in another team is a conflict (409); one already in this team changes nothing.
 */
export interface AdminTeamMemberRequest {
  /**
   * The user's id or name.
   */
  user: string;
}
