/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/tokens: a new client token of a user. The key is answered once and never again.
 */
export interface AdminTokenCreateRequest {
  /**
   * The owner's id (`usr_…`; 404 `user_not_found` when there is none) or name. A name no user has yet makes a user of that name; absent: a user of the token's own. The token spends from the user's wallet.
   */
  user?: string;
  /**
   * A group of channels.yaml `groups`: which models the token reaches, its rate limit and in-flight task limit. Default: its user's group (required when the token makes a new user).
   */
  group?: string;
  /**
   * Units put into the user's wallet (default 0).
   */
  quota?: number;
  /**
   * The models the token may use, a subset of its group's; absent: all of them.
   *
   * @maxItems 256
   */
  models?: string[];
  /**
   * A label for people.
   */
  name?: string;
  /**
   * When the token stops working, in unix seconds; absent or null: never.
   */
  expires_at?: number | null;
  /**
   * Most tokens (prompt plus completion, as billed) the token may use in any minute, replacing its group's `tokens_per_minute`; absent or null: the group's.
   */
  tokens_per_minute?: number | null;
  /**
   * The most the token may spend in total; absent or null: no total cap.
   */
  cap?: number | null;
  /**
   * The most the token may spend per `cap_period`; goes with `cap_period`.
   */
  period_cap?: number | null;
  /**
   * day, week or month (the configured time zone's calendar); goes with `period_cap`.
   */
  cap_period?: 'day' | 'week' | 'month' | null;
}
