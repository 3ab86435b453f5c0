/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/users: a new user with a wallet that every token of theirs spends from.
 */
export interface AdminUserCreateRequest {
  /**
   * Unique among users; the user may be named by it wherever an id is taken. Not of an id's form (`usr_` and 12 hex digits).
   */
  name: string;
  /**
   * A group of channels.yaml `groups`: the group the user's tokens get when none is asked for. Default: `default` where the config has it, else its only group.
   */
  group?: string;
  /**
   * Units put into the new wallet (default 0).
   */
  quota?: number;
  /**
   * No wallet bound: only the team's budget and the tokens' caps bound the user; the wallet records the spending and goes below 0.
   */
  unlimited?: boolean;
}
