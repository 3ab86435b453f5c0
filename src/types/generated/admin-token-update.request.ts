/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * PATCH /admin/tokens/{id}: the fields to change; the others stay. Takes effect on every instance within the token cache time (at once on Redis).
 */
export interface AdminTokenUpdateRequest {
  /**
   * A group of channels.yaml `groups`.
   */
  group?: string;
  /**
   * The models the token may use; null: all of its group's.
   *
   * @maxItems 256
   */
  models?: string[] | null;
  /**
   * A label for people; null removes it.
   */
  name?: string | null;
  /**
   * When the token stops working, in unix seconds; null: never.
   */
  expires_at?: number | null;
  /**
   * Most tokens (prompt plus completion, as billed) the token may use in any minute; null: its group's `tokens_per_minute`.
   */
  tokens_per_minute?: number | null;
  /**
   * The most the token may spend in total; null removes the cap. The token's account moves by the difference, so what it spent so far counts against the new cap.
   */
  cap?: number | null;
  /**
   * The most the token may spend per `cap_period`; null removes it (with `cap_period`). The current period's account moves by the difference.
   */
  period_cap?: number | null;
  /**
   * day, week or month; null removes it (with `period_cap`).
   */
  cap_period?: 'day' | 'week' | 'month' | null;
}
