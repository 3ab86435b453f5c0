/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/teams: a new team; its budget and member cap apply per period, each period's starting afresh on the configured time zone's calendar.
 */
export interface AdminTeamCreateRequest {
  /**
   * Unique among teams; the team may be named by it wherever an id is taken. Not of an id's form (`team_` and 12 hex digits).
   */
  name: string;
  /**
   * Units the team's members may spend together per period; absent or null: no team budget.
   */
  budget?: number | null;
  /**
   * The period of the budget and the member cap (default month); needs a `budget` or a `member_cap`.
   */
  period?: 'day' | 'week' | 'month' | null;
  /**
   * Units one member may spend per period; absent or null: no cap per member.
   */
  member_cap?: number | null;
}
