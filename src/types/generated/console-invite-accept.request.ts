/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /console/api/invite: the code of an invite link (after `#invite=`) and the password to set. The code is good once, for 72 hours.
 */
export interface ConsoleInviteAcceptRequest {
  /**
   * The invite's code, from its link.
   */
  code: string;
  /**
   * The new console password: 12 to 256 characters.
   */
  password: string;
}
