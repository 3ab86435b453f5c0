/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/tokens: a new client token. The key is answered once and never again.
 */
export interface AdminTokenCreateRequest {
  /**
   * A group of channels.yaml `groups`: which models the token reaches, its rate limit and in-flight task limit.
   */
  group: string;
  /**
   * The opening balance in quota units.
   */
  quota: number;
  /**
   * Who the token belongs to; tokens of one user share their tasks and kept answers. Default: the token's own id.
   */
  user?: string;
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
}
