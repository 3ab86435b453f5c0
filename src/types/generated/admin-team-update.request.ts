/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * PATCH /admin/teams/{id}: the fields to change; the others stay. A new budget or member cap moves the current period's accounts by the difference, so what was spent in the period still counts; a new period applies from its first request.
 */
export interface AdminTeamUpdateRequest {
  /**
   * A new name, unique among teams (409 `conflict` when another team has it).
   */
  name?: string;
  /**
   * Units per period; null removes the budget.
   */
  budget?: number | null;
  /**
   * day, week or month.
   */
  period?: 'day' | 'week' | 'month' | null;
  /**
   * Units one member may spend per period; null removes the cap.
   */
  member_cap?: number | null;
}
