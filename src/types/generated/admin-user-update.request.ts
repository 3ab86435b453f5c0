/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * PATCH /admin/users/{id}: the fields to change; the others stay. The wallet moves only by topups. Takes effect on every instance within the token cache time (at once on Redis).
 */
export interface AdminUserUpdateRequest {
  /**
   * A new name, unique among users (409 `conflict` when another user has it).
   */
  name?: string;
  /**
   * A group of channels.yaml `groups`: the group the user's tokens get when none is asked for.
   */
  group?: string;
  /**
   * Whether the wallet bounds the user's spending.
   */
  unlimited?: boolean;
  /**
   * A disabled user's tokens are refused (401); the wallet stays.
   */
  disabled?: boolean;
}
