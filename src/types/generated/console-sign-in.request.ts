/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /console/api/sign-in: a console user's name and password. A wrong name and a wrong password get the same 401.
 */
export interface ConsoleSignInRequest {
  /**
   * The user's name (as `switchyard user create --name` gave it).
   */
  name: string;
  /**
   * The password the user set from their invite.
   */
  password: string;
}
