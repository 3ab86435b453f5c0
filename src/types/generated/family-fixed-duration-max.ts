/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Fixed-duration family, max tier: the duration is fixed at 15 s.
 */
export interface FixedDurationMaxRules {
  /**
   * Must be 15.
   */
  seconds?: '15' | 15;
  /**
   * Must be 15.
   */
  duration?: '15' | 15;
}
