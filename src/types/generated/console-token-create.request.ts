/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /console/api/me/tokens: a new token of the signed-in user, in their group, spending from their wallet. The key is answered once and never again.
 */
export interface ConsoleTokenCreateRequest {
  /**
   * A label for people.
   */
  name?: string;
  /**
   * The models the token may use, each one the user's group is served (GET /console/api/me `models`); absent: all of them.
   *
   * @maxItems 256
   */
  models?: string[];
  /**
   * The most the token may spend in total, in quota units; absent or null: no cap of its own.
   */
  cap?: number | null;
  /**
   * The most the token may spend per `cap_period`, in quota units.
   */
  period_cap?: number | null;
  /**
   * The period of `period_cap`, on the gateway's calendar.
   */
  cap_period?: 'day' | 'week' | 'month' | null;
  /**
   * When the token stops working, in unix seconds; absent or null: never.
   */
  expires_at?: number | null;
}
