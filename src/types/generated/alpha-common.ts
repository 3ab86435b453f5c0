/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Fields shared by the /alpha video routes (the vendor's own format).
 */
export interface AlphaCommon {
  [k: string]: unknown;
}
