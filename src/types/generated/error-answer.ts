/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a route's `error_answer` (src/server.ts inFamilyShape): the body of every error the gateway answers on the route, in the family's own shape; the HTTP status stays the gateway's. When the transform fails or returns nothing, the usual Shape A error is sent.
 */
export interface ErrorAnswer {
  [k: string]: unknown;
}
